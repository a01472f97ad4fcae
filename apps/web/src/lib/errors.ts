import { ApiError } from "./api-client.ts";
import { i18n } from "./i18n.ts";

/** The text a person sees for any failure, in their language, chosen by error code. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    const key = `errors.${error.code}`;
    return i18n.exists(key, { ns: "common" }) ? String(i18n.t(key as never)) : i18n.t("errors.unknown");
  }
  return i18n.t("errors.unknown");
}
