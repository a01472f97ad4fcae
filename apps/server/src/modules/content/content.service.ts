import { createHash, randomUUID } from "node:crypto";
import type { ContactSubmissionBody, Contents, Language } from "@hikaya/contracts";
import { contactSubmissionBodySchema, mediaFor } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { findContactSubmissionByKey, findInstruction, insertContactSubmission, listDocuments } from "./content.repository.ts";

type Deps = Pick<AppDeps, "db">;

/** The instruction video for `location` in `language`, or the other language's when it has none. */
export async function instructionMedia(deps: Deps, location: string, language?: Language): Promise<string | null> {
  const row = await findInstruction(deps.db, location);
  return row ? mediaFor(language, row.media_path, row.media_path_ar) : null;
}

const DOCUMENT_KEYS = ["termsAndCondition", "privacyAndPolicy", "greetingAudio", "landingVideo"] as const;

/** GET /get/contents: the documents' public URLs in `language` (else the other one); null for one not uploaded. */
export async function contents(deps: Deps, language?: Language): Promise<Contents> {
  const rows = await listDocuments(deps.db, DOCUMENT_KEYS);
  const byKey = new Map(rows.map((r) => [r.key, mediaFor(language, r.path, r.path_ar)]));
  return {
    termsAndCondition: byKey.get("termsAndCondition") ?? null,
    privacyAndPolicy: byKey.get("privacyAndPolicy") ?? null,
    greetingAudio: byKey.get("greetingAudio") ?? null,
    landingVideo: byKey.get("landingVideo") ?? null,
  };
}

/** Who sent a contact form: the signed-in account, else the address it came from. */
export interface ContactSender {
  userId: string | null;
  address: string;
}

/**
 * Stores a Contact Us submission. With an idempotency key the form is stored once per key and sender: the same key
 * again (a retry after a dropped connection) answers the first submission's id and stores nothing. The key is
 * scoped to the account, else the address, so one sender's key never finds another's submission; it is stored
 * hashed with that scope, so the table keeps no addresses.
 */
export async function submitContact(deps: Deps, sender: ContactSender, body: ContactSubmissionBody) {
  const input = contactSubmissionBodySchema.parse(body);
  const id = randomUUID();
  const createdAt = new Date().toISOString();
  const scope = sender.userId ? `user:${sender.userId}` : `address:${sender.address}`;
  const idempotencyKey = input.idempotencyKey
    ? createHash("sha256").update(`${scope}\n${input.idempotencyKey}`).digest("hex")
    : null;
  const stored = await insertContactSubmission(deps.db, {
    id,
    user_id: sender.userId,
    name: input.name,
    message: input.message,
    phone: input.phone || null,
    city: input.city || null,
    country: input.country || null,
    gender: input.gender,
    handled_at: null,
    created_at: createdAt,
    idempotency_key: idempotencyKey,
  });
  if (stored || !idempotencyKey) return { id, createdAt };
  const first = await findContactSubmissionByKey(deps.db, idempotencyKey);
  // Gone between the two statements only if an operator deleted it that instant: the form was received.
  return first ? { id: first.id, createdAt: first.created_at } : { id, createdAt };
}
