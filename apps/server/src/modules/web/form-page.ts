import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Language } from "@hikaya/contracts";
import { escapeHtml } from "../keepsake/html.ts";

/**
 * A prerendered public screen (apps/web build/prerender.ts) answered again after its form was posted without
 * scripts: the same page, what the person typed put back (never a password), and a notice in their language above
 * the screen. The strings come from the web app's own locale files, which the build copies beside the pages
 * (`prerendered/<language>/strings.json`), so a message is written once, in apps/web/src/locales.
 */

export interface FormNotice {
  kind: "error" | "success";
  text: string;
}

/** Field values to put back: text by input or textarea name, booleans for checkboxes, a select's chosen option. */
export type FormValues = Record<string, string | boolean | undefined>;

type Strings = Record<string, unknown>;

export class FormPages {
  readonly #root: string;
  readonly #strings = new Map<Language, Promise<Strings>>();

  constructor(webDistDir: string) {
    this.#root = webDistDir;
  }

  /** `namespace:key.path` in the language, with `{{name}}` filled and plural forms picked by `count`. */
  async text(language: Language, key: string, values: Record<string, string | number> = {}): Promise<string> {
    const strings = await this.#load(language);
    const [namespace, path] = key.split(":") as [string, string];
    const lookup = (p: string) =>
      p.split(".").reduce<unknown>((node, part) => (node as Strings | undefined)?.[part], strings[namespace]);
    const count = values.count;
    const plural = typeof count === "number" ? lookup(`${path}_${new Intl.PluralRules(language).select(count)}`) : undefined;
    const found = plural ?? lookup(path) ?? lookup(`${path}_other`);
    const template = typeof found === "string" ? found : key;
    return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(values[name] ?? ""));
  }

  /** The screen's prerendered HTML with the notice and the values, or null when the build has no such page. */
  async render(language: Language, path: string, notice: FormNotice, values: FormValues): Promise<string | null> {
    let html: string;
    try {
      html = await readFile(join(this.#root, "prerendered", language, `${path}.html`), "utf8");
    } catch {
      return null;
    }
    return withNotice(withValues(html, values), notice);
  }

  #load(language: Language): Promise<Strings> {
    let strings = this.#strings.get(language);
    if (!strings) {
      strings = readFile(join(this.#root, "prerendered", language, "strings.json"), "utf8").then(
        (text) => JSON.parse(text) as Strings,
        () => ({}),
      );
      this.#strings.set(language, strings);
    }
    return strings;
  }
}

/**
 * The notice sits before the app's root, outside what React hydrates, so the page hydrates as built; the app
 * removes it once the person moves on (main.tsx).
 */
function withNotice(html: string, notice: FormNotice): string {
  const role = notice.kind === "error" ? "alert" : "status";
  const element = `<p id="form-notice" class="form-notice form-notice--${notice.kind}" role="${role}">${escapeHtml(notice.text)}</p>`;
  return html.replace('<div id="root"', () => `${element}<div id="root"`);
}

/** Puts each value back into its named field. Passwords are never sent back, whatever `values` holds. */
function withValues(html: string, values: FormValues): string {
  let out = html;
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const attr = `name="${escapeHtml(name)}"`;
    out = out.replace(/<input\b[^>]*>/g, (tag) => {
      if (!tag.includes(attr) || /type="password"/.test(tag)) return tag;
      if (/type="checkbox"/.test(tag)) {
        const plain = tag.replace(/ checked(="[^"]*")?/, "");
        return value === true ? plain.replace(/<input\b/, "<input checked") : plain;
      }
      if (typeof value !== "string" || /type="hidden"/.test(tag)) return tag;
      return tag.replace(/ value="[^"]*"/, "").replace(/<input\b/, () => `<input value="${escapeHtml(value)}"`);
    });
    if (typeof value !== "string") continue;
    out = out.replace(
      new RegExp(`(<textarea\\b[^>]*${attr}[^>]*>)[\\s\\S]*?(</textarea>)`, "g"),
      (_, open: string, close: string) => `${open}${escapeHtml(value)}${close}`,
    );
    out = out.replace(new RegExp(`(<select\\b[^>]*${attr}[^>]*>)([\\s\\S]*?)(</select>)`, "g"), (_, open, options, close) => {
      const chosen = String(options)
        .replace(/ selected(="[^"]*")?/g, "")
        .replace(`<option value="${escapeHtml(value)}"`, () => `<option selected value="${escapeHtml(value)}"`);
      return `${open}${chosen}${close}`;
    });
  }
  return out;
}
