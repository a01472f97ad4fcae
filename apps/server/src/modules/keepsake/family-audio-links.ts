import type { AppDeps } from "../../deps.ts";
import { isValidLink, signedQuery } from "../storage/signed-links.ts";

/** Signed playback links to a family message's files, one subject per file (storage/signed-links.ts). */
export type FamilyAudioPart = "voice" | "answer";
const subjectOf = (id: string, part: FamilyAudioPart) => `family-messages/${id}/${part}`;

export const familyAudioUrl = (deps: Pick<AppDeps, "auth">, id: string, part: FamilyAudioPart) =>
  `/api/family-messages/${id}/${part}?${signedQuery(deps, subjectOf(id, part))}`;

export const isValidFamilyAudioLink = (
  deps: Pick<AppDeps, "auth">,
  id: string,
  part: FamilyAudioPart,
  expires: number | undefined,
  signature: string | undefined,
) => isValidLink(deps, subjectOf(id, part), expires, signature);
