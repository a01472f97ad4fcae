import { randomUUID } from "node:crypto";
import type { ContactSubmissionBody, Contents, Language } from "@hikaya/contracts";
import { contactSubmissionBodySchema, mediaFor } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { findInstruction, insertContactSubmission, listDocuments } from "./content.repository.ts";

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

export async function submitContact(deps: Deps, userId: string | null, body: ContactSubmissionBody) {
  const input = contactSubmissionBodySchema.parse(body);
  const id = randomUUID();
  const createdAt = new Date().toISOString();
  await insertContactSubmission(deps.db, {
    id,
    user_id: userId,
    name: input.name,
    message: input.message,
    phone: input.phone || null,
    city: input.city || null,
    country: input.country || null,
    gender: input.gender,
    handled_at: null,
    created_at: createdAt,
  });
  return { id, createdAt };
}
