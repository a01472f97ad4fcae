import { DEFAULT_PRIMARY_COLOR, type PublicSettings } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { findSiteSettings } from "./settings.repository.ts";

export const DEFAULT_TITLE = { en: "Hikaya", ar: "حكاية" } as const;

export async function getPublicSettings(deps: AppDeps): Promise<PublicSettings> {
  const row = await findSiteSettings(deps.db);
  return {
    title: { en: row?.title_en ?? DEFAULT_TITLE.en, ar: row?.title_ar ?? DEFAULT_TITLE.ar },
    primaryColor: row?.primary_color ?? DEFAULT_PRIMARY_COLOR,
    siteUnderMaintenance: row?.site_under_maintenance === 1,
    anonKey: deps.auth.keys.anonKey,
    usernameEmailDomain: deps.config.usernameEmailDomain,
  };
}
