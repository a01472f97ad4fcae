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
  /** Origins story videos and thumbnails may come from besides YouTube, Vimeo and the app's storage. */
  videoOrigins: string[];
  updatedAt: string | null;
}

/** The stored list (one origin per line) as origins. */
export const videoOriginsOf = (stored: string | null | undefined): string[] => (stored ?? "").split("\n").filter(Boolean);

export async function getSiteSettings(db: DB): Promise<SiteSettings> {
  const row = await findSiteSettings(db);
  return {
    titleEn: row?.title_en ?? DEFAULT_TITLE.en,
    titleAr: row?.title_ar ?? DEFAULT_TITLE.ar,
    primaryColor: row?.primary_color ?? DEFAULT_PRIMARY_COLOR,
    siteUnderMaintenance: row?.site_under_maintenance === 1,
    videoOrigins: videoOriginsOf(row?.video_origins),
    updatedAt: row?.updated_at ?? null,
  };
}

/**
 * Saves the settings (the caller's transaction, when it has one); the time is when it happened. Video origins left
 * out stay as they are.
 */
export async function saveSiteSettings(
  db: DB,
  settings: Omit<SiteSettings, "updatedAt" | "videoOrigins"> & { videoOrigins?: readonly string[]; updatedAt: string },
) {
  await upsertSiteSettings(db, {
    title_en: settings.titleEn,
    title_ar: settings.titleAr,
    primary_color: settings.primaryColor,
    site_under_maintenance: settings.siteUnderMaintenance ? 1 : 0,
    ...(settings.videoOrigins ? { video_origins: settings.videoOrigins.join("\n") } : {}),
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
