import { AppError } from "../errors.ts";

/** Thrown inside a save's transaction when another save came first; `savedOrStale` turns it into the 409. */
export class StaleSave extends Error {
  constructor() {
    super("stale version");
    this.name = "StaleSave";
  }
}

/**
 * The version a conditional save's own statement wrote, read from its `returning` row; null when no row matched
 * (another save came first). A save answers this one, never a re-read after its commit: by then a later save may
 * have counted another, and a console that took that one would overwrite the later save unwarned.
 */
export const versionWritten = (row: { version?: number | null } | undefined): number | null =>
  row ? Number(row.version ?? 0) : null;

/**
 * Runs a versioned save. A stale one answers 409 `conflict` with `details: { reason: "stale_version", current }`:
 * the stored values are read after the transaction rolled back, so the console shows what the other save left.
 */
export async function savedOrStale<T>(save: () => Promise<T>, current: () => Promise<unknown>): Promise<T> {
  try {
    return await save();
  } catch (error) {
    if (!(error instanceof StaleSave)) throw error;
    throw new AppError("conflict", "Someone else saved a change since you opened this; here is what is stored now.", {
      reason: "stale_version",
      current: await current(),
    });
  }
}
