import type { Bucket } from "@hikaya/contracts";
import type { DB } from "../../db/database.ts";
import { listRecordingKeys, listReferencedPaths, listVoiceNoteKeys } from "./storage.repository.ts";
import { objectOf } from "./story-media.ts";

/**
 * Every stored file some row points at, as bucket and key, for other modules (media's backfill): the paths kept in
 * the program's tables (stories, questions, instructions, family members, settings), every recording and every voice
 * message. The storage sweep reads the same rows to decide what it keeps.
 */
export async function listStoredSources(
  db: DB,
): Promise<{ bucket: Bucket; key: string; from: "path" | "recording" | "voice" }[]> {
  const sources: { bucket: Bucket; key: string; from: "path" | "recording" | "voice" }[] = [];
  for (const path of await listReferencedPaths(db)) {
    const object = objectOf(path);
    if (object) sources.push({ bucket: object.bucket, key: object.key, from: "path" });
  }
  for (const key of await listRecordingKeys(db)) sources.push({ bucket: "recordings", key, from: "recording" });
  for (const key of await listVoiceNoteKeys(db)) sources.push({ bucket: "voice-notes", key, from: "voice" });
  return sources;
}
