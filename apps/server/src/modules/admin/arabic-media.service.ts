import type { AdminMedia, InstructionLocation } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import { type Actor, audit } from "../audit/audit.service.ts";
import { releaseFiles } from "../storage/story-media.ts";
import * as repo from "./arabic-media.repository.ts";
import { getMedia } from "./content.service.ts";

/**
 * An instruction's Arabic video (the landing video is the "Landing Page" instruction) beside the English one, which
 * stays the default every family falls back to; so it needs the English one first. A story's and a question's
 * Arabic files are the story service's (modules/stories/arabic-media.service.ts).
 */
export async function setInstructionArabicMedia(
  deps: AppDeps,
  actor: Actor,
  location: InstructionLocation,
  media: string | null,
): Promise<AdminMedia> {
  const { replaced, answer } = await deps.db.transaction().execute(async (trx) => {
    const before = await repo.findInstructionRow(trx, location);
    if (!before) throw new AppError("validation_failed", "media: upload the English video of this instruction first");
    await repo.setInstructionArabicMedia(trx, location, media, new Date().toISOString());
    await audit(trx, actor, "instruction.media_ar", { type: "instruction", id: location }, { media });
    // Read in this write's transaction: after the commit, another save's version could show instead.
    return { replaced: before.media_path_ar, answer: await getMedia(trx) };
  });
  await releaseFiles(deps, [replaced]);
  return answer;
}
