import { ApiError } from "../../lib/api-client.ts";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { refusedField } from "../logic.ts";

/**
 * What to tell the operator about a refused save, in their language: for `validation_failed` the field (by the
 * label the form shows for it) and why, e.g. "Title (Arabic): cannot be empty; spaces alone do not count";
 * otherwise the error code's text. Never the server's English message.
 */
export function useSaveErrorText() {
  const { t } = useTranslation("admin");
  return (error: unknown, labels: Record<string, string>): string => {
    if (error instanceof ApiError && error.code === "validation_failed") {
      const refused = refusedField(error.details);
      const label = refused ? labels[refused.field] : undefined;
      if (refused && label) {
        const problem = refused.reason === "too_small" || refused.reason === "too_big" ? refused.reason : "other";
        return t("validation.field", { field: label, problem: t(`validation.${problem}`) });
      }
    }
    return errorText(error);
  };
}
