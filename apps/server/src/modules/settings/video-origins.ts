import { YOUTUBE_OR_VIMEO } from "@hikaya/contracts";
import type { DatabaseHandle, DB } from "../../db/database.ts";
import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import type { MessageBus } from "../../infrastructure/bus/bus.ts";
import { onTableChanges } from "../../infrastructure/cache/table-changes.ts";
import { findSiteSettings } from "./settings.repository.ts";
import { videoOriginsOf } from "./settings.service.ts";

export const SITE_SETTINGS_CHANNEL = "site_settings_changed";

/** The listed video origins, read from the database (a story save: rare, and must see the latest list). */
export async function listedVideoOrigins(db: DB): Promise<string[]> {
  return videoOriginsOf((await findSiteSettings(db))?.video_origins);
}

/**
 * The listed video origins as every response's CSP needs them: held in memory and dropped by any write to
 * site_settings, here or on another replica (table-changes.ts, confirmed before the writer is answered), so the
 * next response after a save names the new list on every replica. While the bus is not live, or with caches off
 * (CACHE_MAX_BYTES=0), every read goes to the database: the header must never lag a change.
 */
export class VideoOriginsReader {
  readonly #db: DB;
  readonly #bus: MessageBus;
  readonly #hold: boolean;
  #held: readonly string[] | undefined;
  // Bumped by every change: a read that overlapped one answers what it read but keeps nothing.
  #epoch = 0;
  #stop: () => Promise<void> = async () => {};

  constructor(deps: { db: DB; bus: MessageBus; hold: boolean }) {
    this.#db = deps.db;
    this.#bus = deps.bus;
    this.#hold = deps.hold;
  }

  async start(database: Pick<DatabaseHandle, "writes">): Promise<void> {
    this.#stop = await onTableChanges(
      { database, bus: this.#bus },
      {
        channel: SITE_SETTINGS_CHANNEL,
        tables: { site_settings: [] },
        onChange: () => {
          this.#epoch++;
          this.#held = undefined;
        },
      },
    );
  }

  stop(): Promise<void> {
    return this.#stop();
  }

  /** The list if held and current, without a round trip; undefined when it must be read. */
  held(): readonly string[] | undefined {
    return this.#bus.live ? this.#held : undefined;
  }

  async read(): Promise<readonly string[]> {
    const held = this.held();
    if (held) return held;
    const epoch = this.#epoch;
    const origins = await listedVideoOrigins(this.#db);
    if (this.#hold && epoch === this.#epoch && this.#bus.live) this.#held = origins;
    return origins;
  }
}

/** Starts the reader for this app (security-headers.ts reads the CSP's media origins through it). */
export async function startVideoOrigins(deps: Pick<AppDeps, "db" | "database" | "bus" | "config">): Promise<VideoOriginsReader> {
  const reader = new VideoOriginsReader({ db: deps.db, bus: deps.bus, hold: deps.config.cacheMaxBytes > 0 });
  await reader.start(deps.database);
  return reader;
}

/**
 * Refuses a story's outside address that is not allowed: a video from YouTube, Vimeo or a listed origin, a
 * thumbnail from a listed origin (uploaded files are the storage's own paths, checked where they are kept).
 */
export function checkStoryMediaOrigin(
  field: "videoUrl" | "thumbnailUrl",
  value: string | null | undefined,
  listed: readonly string[],
): void {
  if (!value || value.startsWith("/storage/")) return;
  if (field === "videoUrl" && YOUTUBE_OR_VIMEO.test(value)) return;
  let origin: string | null = null;
  try {
    const url = new URL(value);
    if (url.protocol === "https:") origin = url.origin;
  } catch {
    origin = null;
  }
  if (origin && listed.includes(origin)) return;
  const allowed = field === "videoUrl" ? "a YouTube or Vimeo link, an uploaded file" : "an uploaded file";
  throw new AppError(
    "validation_failed",
    `body.${field}: must be ${allowed} or an https address on a video origin listed in the settings`,
    {
      issues: [{ path: `/${field}`, message: "not an allowed origin", reason: "origin_not_allowed" }],
    },
  );
}
