/**
 * A form's fields checked by the request's own schema from @hikaya/contracts, the one the server parses the request
 * with: a rule (required, a length limit) lives in one place, and the screen only says it in the person's language.
 * The schema arrives with the screen that sends the request, so screens without one never download zod.
 */

import { useTranslation } from "./i18n.ts";

/** The part of a zod schema this needs (zod's own types stay in packages/contracts). */
interface RequestSchema {
  safeParse(values: unknown): { success: true } | { success: false; error: { issues: readonly SchemaIssue[] } };
}

interface SchemaIssue {
  code: string;
  path: readonly PropertyKey[];
  minimum?: unknown;
  maximum?: unknown;
}

/**
 * A request schema a first-visit screen (login, register) loads only once the person starts on its form: zod and the
 * schemas are about 23 KB gzipped, which would otherwise ride with the screen's first download (bench/web.ts keeps
 * /login's under its budget). The form asks for it on focus and waits for it on submit; later calls share one load.
 */
export function schemaOnDemand<S extends RequestSchema>(load: () => Promise<S>): () => Promise<S> {
  let loading: Promise<S> | undefined;
  return () => {
    loading ??= load();
    // A failed load (offline) is tried again at the next call rather than remembered.
    loading.catch(() => {
      loading = undefined;
    });
    return loading;
  };
}

/** What is wrong with one field, in words a screen turns into its own message. */
export type FieldProblem = { reason: "required" } | { reason: "tooLong"; limit: number } | { reason: "invalid" };

/** The first problem of each field the schema refuses; an empty object when the request would be accepted. */
export function fieldProblems(schema: RequestSchema, values: unknown): Partial<Record<string, FieldProblem>> {
  const result = schema.safeParse(values);
  if (result.success) return {};
  const problems: Partial<Record<string, FieldProblem>> = {};
  for (const issue of result.error.issues) {
    const field = String(issue.path[0] ?? "");
    if (problems[field]) continue;
    if (issue.code === "too_small" && Number(issue.minimum) <= 1) problems[field] = { reason: "required" };
    else if (issue.code === "too_big") problems[field] = { reason: "tooLong", limit: Number(issue.maximum) };
    else problems[field] = { reason: "invalid" };
  }
  return problems;
}

/**
 * A field's problem as the person reads it: the screen's own words for a missing value, the limit the server keeps
 * for a long one ("Message: at most 5000 characters."), null when the field is fine.
 */
export function useProblemText(): (problem: FieldProblem | undefined, field: string, required: string) => string | null {
  const { t } = useTranslation();
  return (problem, field, required) => {
    if (!problem) return null;
    if (problem.reason === "required") return required;
    if (problem.reason === "tooLong") return t("form.tooLong", { field, count: problem.limit });
    return t("form.invalid", { field });
  };
}
