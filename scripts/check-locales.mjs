// Locale parity: every namespace file and every key of the English strings (the source of truth) exists in Arabic,
// and Arabic has no key English lacks. Plural keys (i18next's key_one, key_other, …) are compared by their base key,
// and each language must have every plural form its own grammar uses (Arabic: zero, one, two, few, many, other).
// `node scripts/check-locales.mjs [localesDir]`: prints each problem, exits 1 when there is one.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const SOURCE = "en";
const PLURAL = /_(zero|one|two|few|many|other)$/;

/** Flattened leaf keys of a strings file: { a: { b: "x" } } → ["a.b"]. */
function leafKeys(value, prefix = "") {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [prefix];
  return Object.entries(value).flatMap(([key, child]) => leafKeys(child, prefix ? `${prefix}.${key}` : key));
}

function readKeys(file) {
  return leafKeys(JSON.parse(readFileSync(file, "utf8")));
}

/** Base keys, and for plural ones the forms present. */
function shape(keys) {
  const plain = new Set();
  const plurals = new Map();
  for (const key of keys) {
    const form = PLURAL.exec(key)?.[1];
    if (!form) {
      plain.add(key);
      continue;
    }
    const base = key.slice(0, -form.length - 1);
    plain.add(base);
    plurals.set(base, (plurals.get(base) ?? new Set()).add(form));
  }
  return { plain, plurals };
}

export function checkLocales(localesDir) {
  const problems = [];
  const languages = readdirSync(localesDir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  if (!languages.includes(SOURCE)) return [`${localesDir}: no ${SOURCE}/ folder`];
  const namespacesOf = (lang) =>
    readdirSync(join(localesDir, lang))
      .filter((f) => f.endsWith(".json"))
      .map((f) => f.slice(0, -5));
  const sourceNamespaces = namespacesOf(SOURCE);
  for (const lang of languages.filter((l) => l !== SOURCE)) {
    const categories = new Intl.PluralRules(lang).resolvedOptions().pluralCategories;
    for (const ns of namespacesOf(lang).filter((n) => !sourceNamespaces.includes(n)))
      problems.push(`${lang}/${ns}.json: a namespace English does not have`);
    for (const ns of sourceNamespaces) {
      const file = join(localesDir, lang, `${ns}.json`);
      if (!existsSync(file)) {
        problems.push(`${lang}/${ns}.json: missing (en/${ns}.json has it)`);
        continue;
      }
      const en = shape(readKeys(join(localesDir, SOURCE, `${ns}.json`)));
      const other = shape(readKeys(file));
      for (const key of en.plain) if (!other.plain.has(key)) problems.push(`${lang}/${ns}.json: missing key "${key}"`);
      for (const key of other.plain) if (!en.plain.has(key)) problems.push(`${lang}/${ns}.json: key "${key}" is not in English`);
      for (const base of en.plurals.keys())
        if (other.plain.has(base) && !other.plurals.has(base))
          problems.push(`${lang}/${ns}.json: "${base}" is plural in English`);
      for (const [base, forms] of other.plurals) {
        const missing = categories.filter((c) => !forms.has(c));
        if (missing.length) problems.push(`${lang}/${ns}.json: "${base}" lacks the plural forms ${missing.join(", ")}`);
      }
    }
  }
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = resolve(process.argv[2] ?? join(import.meta.dirname, "..", "apps", "web", "src", "locales"));
  const problems = checkLocales(dir);
  for (const p of problems) console.error(`locales: ${p}`);
  if (problems.length) process.exit(1);
  console.log("locales: every English key has its Arabic one");
}
