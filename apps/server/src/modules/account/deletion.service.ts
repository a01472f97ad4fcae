import type { AppDeps } from "../../deps.ts";
import { removeEmptiedFolders } from "../../infrastructure/files/file-storage.ts";
import { type Actor, audit } from "../audit/audit.service.ts";
import type { RequestMeta } from "../auth/auth.service.ts";
import { familyMessageFilesOf } from "../keepsake/family-messages.service.ts";
import { revokeEveryLink } from "../keepsake/keepsake.service.ts";
import { forgetJobsOf } from "../media/media.service.ts";
import { voiceNoteFilesOf } from "../messages/messages.service.ts";
import { VOICE_BUCKET } from "../messages/voice-notes.ts";
import { RECORDINGS_BUCKET, recordingFilesOf } from "../recordings/recordings.service.ts";
import { DELETED_PERSON, forgetPerson } from "./account.repository.ts";

type Deps = Pick<AppDeps, "db" | "storage" | "auth">;

/** Makes this the deletion `/auth/v1`'s admin API runs (auth cannot import it: every module imports auth). */
export function registerAccountDeletion(deps: Deps): void {
  deps.auth.accountDeletion.register((userId, meta, actor) =>
    deleteAccountWithFiles(deps, userId, meta, { kind: "admin", actor }),
  );
}

/**
 * The one way an account is deleted, whoever asks: the person themselves (/api/account/delete), an admin in the
 * console, or the Supabase-style admin API (DELETE /auth/v1/admin/users/{id}). The rows go together (the database
 * cascades from the user to sessions, refresh tokens, identities, factors, codes, profile, progress, recordings,
 * messages and conversation), then the stored files of the recordings and voice notes at once, so nothing the
 * person recorded waits for the storage sweep. The console's audit log keeps that an account was deleted, never
 * what it held nor whose it was: what outlives the rows (watch events, audit rows) loses the person's id
 * (`forgetPerson`; docs/runbook.md says what is kept).
 */
export async function deleteAccountWithFiles(
  deps: Deps,
  userId: string,
  meta: RequestMeta,
  by: { kind: "self" } | { kind: "admin"; actor: Actor },
): Promise<{ files: number }> {
  const files = [
    ...(await recordingFilesOf(deps, userId)),
    ...(await voiceNoteFilesOf(deps.db, userId)),
    // What relatives sent through the family's links and the family's answers (the rows go with the account).
    ...(await familyMessageFilesOf(deps, userId)),
  ];
  // Share links stop first, so no relative hears a voice while the rest of the account is going.
  await revokeEveryLink(deps, userId);
  await deps.auth.service.deleteUser(userId, meta, by.kind);
  await forgetPerson(deps.db, userId);
  // The media jobs of those recordings and voice messages name the person's files: they go with the rows.
  await forgetJobsOf(deps, files);
  // The deletion itself is kept as an action, not as the person: no target id, and "deleted" when it was theirs.
  const actor = by.kind === "self" ? { id: DELETED_PERSON, email: null } : by.actor;
  await audit(
    deps.db,
    actor,
    by.kind === "self" ? "account.delete" : "person.delete",
    { type: "user", id: null },
    {
      files: files.length,
    },
  );
  // Rows first, files after: a failure in between can leave a file nothing points to, never a row whose file is gone.
  for (const file of files) await deps.storage.delete(file.bucket, file.key).catch(() => undefined);
  // Each bucket keeps a person's files in a folder named by their id (a processed copy one deeper): the emptied
  // folders go too, deepest first, so none stays named after the person.
  // The person's own folders even with no file left in them (earlier deletions empty them one file at a time).
  const own = [RECORDINGS_BUCKET, VOICE_BUCKET].map((bucket) => ({ bucket, key: `${userId}/-` }));
  await removeEmptiedFolders(deps.storage, [...files, ...own]);
  return { files: files.length };
}
