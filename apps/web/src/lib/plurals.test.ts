import { describe, expect, it } from "vitest";
import { loadNamespaces, type Namespace, renderIn, translate } from "./i18n.ts";

const NAMESPACES: Namespace[] = ["common", "account", "info", "characters", "admin", "stories", "messages", "inbox"];
const FORMS = ["zero", "one", "two", "few", "many", "other"] as const;
/** One count of each Arabic plural form, in order: 0 zero, 1 one, 2 two, 3 few, 11 many, 100 other. */
const COUNTS = [0, 1, 2, 3, 11, 100] as const;

type Tree = { [key: string]: string | Tree };
const files = import.meta.glob<{ default: Tree }>("../locales/*/*.json", { eager: true });
const file = (lang: "en" | "ar", ns: Namespace) => files[`../locales/${lang}/${ns}.json`]?.default ?? {};

function leaves(tree: Tree, prefix = ""): [string, string][] {
  return Object.entries(tree).flatMap(([key, value]) =>
    typeof value === "string" ? [[`${prefix}${key}`, value] as [string, string]] : leaves(value, `${prefix}${key}.`),
  );
}

/** Every key the app shows with a count: an English key with plural forms. */
const countedKeys = NAMESPACES.flatMap((ns) => {
  const bases = new Set(
    leaves(file("en", ns))
      .map(([key]) => /^(.*)_(?:one|other)$/.exec(key)?.[1])
      .filter((base): base is string => base !== undefined),
  );
  return [...bases].map((base) => ({ ns, base }));
});

describe("Arabic plurals, wherever a count is shown", () => {
  it("finds the counted keys", () => {
    expect(countedKeys.length).toBeGreaterThanOrEqual(13);
  });

  it.each(countedKeys)(
    "$ns:$base has all six forms, chosen by Intl.PluralRules for 0, 1, 2, 3, 11 and 100",
    async ({ ns, base }) => {
      await renderIn("ar");
      await loadNamespaces(ns as Exclude<Namespace, "common">);
      const arabic = Object.fromEntries(leaves(file("ar", ns)));
      for (const [i, count] of COUNTS.entries()) {
        const form = FORMS[i] as (typeof FORMS)[number];
        const text = arabic[`${base}_${form}`];
        expect(text, `${ns}:${base}_${form} is missing`).toBeDefined();
        const shown = translate("ar", ns, base, { count });
        expect(shown).toBe(text?.replace(/\{\{\s*count\s*\}\}/g, String(count)).replace(/\{\{\s*\w+\s*\}\}/g, ""));
        // A form that names the number shows this count; zero, one and two may say it in words instead.
        if (form === "few" || form === "many" || form === "other") expect(shown).toContain(String(count));
      }
    },
  );
});
