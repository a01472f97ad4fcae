import { DEFAULT_PRIMARY_COLOR, type PublicSettings } from "@hikaya/contracts";
import type { DB } from "../../db/database.ts";
import type { AppDeps } from "../../deps.ts";
import { findSiteSettings, upsertSiteSettings } from "./settings.repository.ts";

export const DEFAULT_TITLE = { en: "Hikaya", ar: "حكاية" } as const;

/** The site's settings, with the defaults in place of a row never saved. */
export interface SiteSettings {
  titleEn: string;
  titleAr: string;
  primaryColor: string;
  siteUnderMaintenance: boolean;
  updatedAt: string | null;
}

export async function getSiteSettings(db: DB): Promise<SiteSettings> {
  const row = await findSiteSettings(db);
  return {
    titleEn: row?.title_en ?? DEFAULT_TITLE.en,
    titleAr: row?.title_ar ?? DEFAULT_TITLE.ar,
    primaryColor: row?.primary_color ?? DEFAULT_PRIMARY_COLOR,
    siteUnderMaintenance: row?.site_under_maintenance === 1,
    updatedAt: row?.updated_at ?? null,
  };
}

/** Saves every setting (the caller's transaction, when it has one); the time is when it happened. */
export async function saveSiteSettings(db: DB, settings: Omit<SiteSettings, "updatedAt"> & { updatedAt: string }) {
  await upsertSiteSettings(db, {
    title_en: settings.titleEn,
    title_ar: settings.titleAr,
    primary_color: settings.primaryColor,
    site_under_maintenance: settings.siteUnderMaintenance ? 1 : 0,
    updated_at: settings.updatedAt,
  });
}

export async function getPublicSettings(deps: AppDeps): Promise<PublicSettings> {
  const settings = await getSiteSettings(deps.db);
  return {
    title: { en: settings.titleEn, ar: settings.titleAr },
    primaryColor: settings.primaryColor,
    siteUnderMaintenance: settings.siteUnderMaintenance,
    anonKey: deps.auth.keys.anonKey,
    usernameEmailDomain: deps.config.usernameEmailDomain,
  };
}
