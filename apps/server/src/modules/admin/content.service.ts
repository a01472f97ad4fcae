import { randomUUID } from "node:crypto";
import {
  type AdminCharacter,
  type AdminLandingAnswer,
  type AdminMedia,
  type AdminSettings,
  type CharacterInput,
  characterInputSchema,
  DOCUMENT_KEYS,
  type DocumentInput,
  type DocumentKey,
  INSTRUCTION_LOCATIONS,
  type InstructionInput,
  type InstructionLocation,
  type LandingAnswerInput,
  type ReorderInput,
  type SettingsInput,
  type Transcript,
} from "@hikaya/contracts";
import type { DB } from "../../db/database.ts";
import { isRetryableTransactionError } from "../../db/dialect.ts";
import { StaleSave, savedOrStale } from "../../db/versions.ts";
import type { AppDeps } from "../../deps.ts";
import { badRequest, conflict, notFound } from "../../errors.ts";
import { type Actor, audit } from "../audit/audit.service.ts";
import { getSiteSettings, saveSiteSettings } from "../settings/settings.service.ts";
import { releaseFiles } from "../storage/story-media.ts";
import * as repo from "./content.repository.ts";

// ─── family members ───────────────────────────────────────────────────────────────────────────────

export async function listCharacters(db: DB): Promise<AdminCharacter[]> {
  const rows = await repo.listCharacterRows(db);
  return rows.map((r) => ({
    id: r.id,
    key: r.key,
    nameEn: r.name_en,
    nameAr: r.name_ar,
    thumbnail: r.thumbnail_path,
    audio: r.audio_path,
    answerCount: Number(r.answer_count ?? 0) + Number(r.landing_count ?? 0),
    version: Number(r.version ?? 0),
  }));
}

const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 40) || "member";

export async function createCharacter(deps: AppDeps, actor: Actor, input: CharacterInput): Promise<AdminCharacter[]> {
  const data = characterInputSchema.parse(input);
  const id = randomUUID();
  await deps.db.transaction().execute(async (trx) => {
    await repo.insertCharacterRow(trx, {
      id,
      key: `${slug(data.nameEn)}-${id.slice(0, 8)}`,
      name_en: data.nameEn,
      name_ar: data.nameAr,
      thumbnail_path: data.thumbnail,
      audio_path: data.audio,
      created_at: new Date().toISOString(),
    });
    await audit(trx, actor, "character.create", { type: "character", id }, { nameEn: data.nameEn, nameAr: data.nameAr });
  });
  return listCharacters(deps.db);
}

export async function updateCharacter(deps: AppDeps, actor: Actor, id: string, input: CharacterInput): Promise<AdminCharacter[]> {
  const data = characterInputSchema.parse(input);
  const save = () =>
    deps.db.transaction().execute(async (trx) => {
      const before = await repo.findCharacterRow(trx, id);
      if (!before) throw notFound("Family member not found");
      const stored = Number(before.version ?? 0);
      if (data.version !== undefined && data.version !== stored) throw new StaleSave();
      const saved = await repo.updateCharacterRow(trx, id, stored, {
        name_en: data.nameEn,
        name_ar: data.nameAr,
        thumbnail_path: data.thumbnail,
        audio_path: data.audio,
      });
      if (saved === null) throw new StaleSave();
      await audit(
        trx,
        actor,
        "character.update",
        { type: "character", id },
        changesOf([
          ["nameEn", before.name_en, data.nameEn],
          ["nameAr", before.name_ar, data.nameAr],
          ["thumbnail", before.thumbnail_path, data.thumbnail],
          ["audio", before.audio_path, data.audio],
        ]),
      );
      // Read in the save's own transaction, which holds the row: after the commit a later save may show instead.
      return { before, answer: await listCharacters(trx) };
    });
  const { before, answer } = await savedOrStale(
    save,
    async () => (await listCharacters(deps.db)).find((c) => c.id === id) ?? null,
  );
  // A replaced picture or greeting goes once no row uses it.
  await releaseFiles(deps, [before.thumbnail_path, before.audio_path]);
  return answer;
}

/** `{ field: { from, to } }` for each field a save changed: what the audit log shows as a sentence. */
function changesOf(fields: readonly (readonly [string, unknown, unknown])[]): Record<string, { from: unknown; to: unknown }> {
  return Object.fromEntries(fields.filter(([, a, b]) => a !== b).map(([k, a, b]) => [k, { from: a, to: b }]));
}

/** A family member who still answers questions cannot be removed: their answers would vanish with them. */
export async function deleteCharacter(deps: AppDeps, actor: Actor, id: string): Promise<AdminCharacter[]> {
  const row = await deps.db.transaction().execute(async (trx) => {
    const all = await repo.listCharacterRows(trx);
    const row = all.find((c) => c.id === id);
    if (!row) throw notFound("Family member not found");
    if (Number(row.answer_count ?? 0) + Number(row.landing_count ?? 0) > 0)
      throw conflict("This family member still answers questions; remove those answers first");
    await repo.deleteCharacterRow(trx, id);
    await audit(trx, actor, "character.delete", { type: "character", id }, { nameEn: row.name_en, nameAr: row.name_ar });
    return row;
  });
  await releaseFiles(deps, [row.thumbnail_path, row.audio_path]);
  return listCharacters(deps.db);
}

// ─── landing answers ──────────────────────────────────────────────────────────────────────────────

export async function listLandingAnswers(db: DB): Promise<AdminLandingAnswer[]> {
  const rows = await repo.listLandingAnswerRows(db);
  return rows.map((r) => ({
    id: r.id,
    characterId: r.character_id,
    characterNameEn: r.name_en,
    characterNameAr: r.name_ar,
    audio: r.audio_path,
    order: Number(r.position),
    transcript: { en: r.transcript_en ?? null, ar: r.transcript_ar ?? null },
    version: Number(r.version ?? 0),
  }));
}

/** What an audit entry keeps of a transcript: how many characters each language has, not the words. */
const transcriptAudit = (t: Transcript | undefined) =>
  t ? { transcript: { en: t.en?.length ?? null, ar: t.ar?.length ?? null } } : {};

export async function addLandingAnswer(
  deps: AppDeps,
  actor: Actor,
  input: { characterId: string; audio: string; transcript?: Transcript | undefined },
) {
  await deps.db.transaction().execute(async (trx) => {
    const character = await repo.findCharacterRow(trx, input.characterId);
    if (!character) throw notFound("Family member not found");
    const id = randomUUID();
    await repo.insertLandingAnswerRow(trx, {
      id,
      character_id: input.characterId,
      audio_path: input.audio,
      position: await repo.nextLandingPosition(trx),
      created_at: new Date().toISOString(),
      transcript_en: input.transcript?.en ?? null,
      transcript_ar: input.transcript?.ar ?? null,
    });
    await audit(
      trx,
      actor,
      "landing_answer.create",
      { type: "landing_answer", id },
      {
        characterId: input.characterId,
        audio: input.audio,
        nameEn: character.name_en,
        nameAr: character.name_ar,
        ...transcriptAudit(input.transcript),
      },
    );
  });
  return listLandingAnswers(deps.db);
}

/** Replaces a landing answer's family member or audio; a stale `version` is refused (409) with what is stored. */
export async function updateLandingAnswer(deps: AppDeps, actor: Actor, id: string, input: LandingAnswerInput) {
  const save = () =>
    deps.db.transaction().execute(async (trx) => {
      const before = await repo.findLandingAnswerRow(trx, id);
      if (!before) throw notFound("Landing answer not found");
      const character = await repo.findCharacterRow(trx, input.characterId);
      if (!character) throw notFound("Family member not found");
      const stored = Number(before.version ?? 0);
      if (input.version !== undefined && input.version !== stored) throw new StaleSave();
      if (
        (await repo.updateLandingAnswerRow(trx, id, stored, {
          character_id: input.characterId,
          audio_path: input.audio,
          // Left out, the stored words stay.
          ...(input.transcript ? { transcript_en: input.transcript.en, transcript_ar: input.transcript.ar } : {}),
        })) === null
      )
        throw new StaleSave();
      await audit(
        trx,
        actor,
        "landing_answer.update",
        { type: "landing_answer", id },
        {
          order: Number(before.position),
          nameEn: character.name_en,
          nameAr: character.name_ar,
          ...changesOf([
            ["characterId", before.character_id, input.characterId],
            ["audio", before.audio_path, input.audio],
          ]),
          ...transcriptAudit(input.transcript),
        },
      );
      // The same file sent back (a save of the words alone) is not a replacement.
      return { replaced: before.audio_path === input.audio ? null : before.audio_path, answer: await listLandingAnswers(trx) };
    });
  const { replaced, answer } = await savedOrStale(
    save,
    async () => (await listLandingAnswers(deps.db)).find((a) => a.id === id) ?? null,
  );
  await releaseFiles(deps, [replaced]);
  return answer;
}

/**
 * Puts the landing answers in the given order (1…n). As for stories, `expected` is the order the admin saw: a
 * different stored order means someone else changed it, refused with 409 rather than merged; each row moves
 * only from the place it was read at, so two reorders racing cannot interleave.
 */
export async function reorderLandingAnswers(deps: AppDeps, actor: Actor, input: ReorderInput) {
  const changed = () => conflict("The landing answers were changed by someone else; reload and try again");
  try {
    await deps.db.transaction().execute(async (trx) => {
      const current = await repo.listLandingAnswerRows(trx);
      const currentIds = current.map((a) => a.id);
      if (currentIds.join() !== input.expected.join()) throw changed();
      if (
        input.ids.length !== currentIds.length ||
        new Set(input.ids).size !== input.ids.length ||
        !input.ids.every((id) => currentIds.includes(id))
      )
        throw badRequest("ids must list every landing answer exactly once");
      for (const answer of current) {
        const to = input.ids.indexOf(answer.id) + 1;
        if (to !== Number(answer.position) && (await repo.moveLandingAnswer(trx, answer.id, Number(answer.position), to)) !== 1)
          throw changed();
      }
      const moved = current
        .map((a, i) => ({ id: a.id, nameEn: a.name_en, nameAr: a.name_ar, from: i + 1, to: input.ids.indexOf(a.id) + 1 }))
        .filter((m) => m.from !== m.to);
      await audit(trx, actor, "landing_answer.reorder", { type: "landing_answer" }, { moved });
    });
  } catch (error) {
    // A reorder that lost a race in the database itself is the same "someone else changed it", never a 500.
    if (isRetryableTransactionError(error)) throw changed();
    throw error;
  }
  return listLandingAnswers(deps.db);
}

export async function deleteLandingAnswer(deps: AppDeps, actor: Actor, id: string) {
  const audio = await deps.db.transaction().execute(async (trx) => {
    const row = (await repo.listLandingAnswerRows(trx)).find((r) => r.id === id);
    if (!row || (await repo.deleteLandingAnswerRow(trx, id)) !== 1) throw notFound("Landing answer not found");
    await repo.closeLandingGap(trx, Number(row.position));
    await audit(
      trx,
      actor,
      "landing_answer.delete",
      { type: "landing_answer", id },
      { order: Number(row.position), nameEn: row.name_en, nameAr: row.name_ar },
    );
    return row.audio_path;
  });
  await releaseFiles(deps, [audio]);
  return listLandingAnswers(deps.db);
}

// ─── instruction videos and documents ─────────────────────────────────────────────────────────────

export async function getMedia(db: DB): Promise<AdminMedia> {
  const instructions = await repo.listInstructionRows(db);
  const documents = await repo.listDocumentRows(db);
  return {
    instructions: INSTRUCTION_LOCATIONS.map((location) => {
      const row = instructions.find((r) => r.location === location);
      return {
        location,
        media: row?.media_path ?? null,
        mediaAr: row?.media_path_ar ?? null,
        updatedAt: row?.updated_at ?? null,
        version: Number(row?.version ?? 0),
      };
    }),
    documents: DOCUMENT_KEYS.map((key) => {
      const row = documents.find((r) => r.key === key);
      return {
        key,
        path: row?.path ?? null,
        updatedAt: row?.updated_at ?? null,
        transcript: { en: row?.transcript_en ?? null, ar: row?.transcript_ar ?? null },
        version: Number(row?.version ?? 0),
      };
    }),
  };
}

export async function setInstruction(deps: AppDeps, actor: Actor, location: InstructionLocation, input: InstructionInput) {
  const save = () =>
    deps.db.transaction().execute(async (trx) => {
      const before = (await repo.listInstructionRows(trx)).find((r) => r.location === location);
      const stored = Number(before?.version ?? 0);
      if (input.version !== undefined && input.version !== stored) throw new StaleSave();
      if ((await repo.upsertInstruction(trx, location, input.media, new Date().toISOString(), stored)) === null)
        throw new StaleSave();
      await audit(trx, actor, "instruction.update", { type: "instruction", id: location }, { media: input.media });
      return { replaced: before?.media_path, answer: await getMedia(trx) };
    });
  const { replaced, answer } = await savedOrStale(save, async () =>
    (await getMedia(deps.db)).instructions.find((i) => i.location === location),
  );
  await releaseFiles(deps, [replaced]);
  return answer;
}

export async function setDocument(deps: AppDeps, actor: Actor, key: DocumentKey, input: DocumentInput) {
  const save = () =>
    deps.db.transaction().execute(async (trx) => {
      const before = (await repo.listDocumentRows(trx)).find((r) => r.key === key);
      const stored = Number(before?.version ?? 0);
      if (input.version !== undefined && input.version !== stored) throw new StaleSave();
      // Only the greeting is a voice; a PDF's words are its own.
      if (input.transcript && key !== "greetingAudio") throw badRequest("transcript: only the greeting audio has words");
      const words = input.transcript && { transcript_en: input.transcript.en, transcript_ar: input.transcript.ar };
      if ((await repo.upsertDocument(trx, key, input.path, new Date().toISOString(), stored, words)) === null)
        throw new StaleSave();
      await audit(
        trx,
        actor,
        "document.update",
        { type: "document", id: key },
        { path: input.path, ...transcriptAudit(input.transcript) },
      );
      // The same file sent back (a save of the words alone) is not a replacement.
      return { replaced: before?.path === input.path ? null : before?.path, answer: await getMedia(trx) };
    });
  const { replaced, answer } = await savedOrStale(save, async () =>
    (await getMedia(deps.db)).documents.find((d) => d.key === key),
  );
  await releaseFiles(deps, [replaced]);
  return answer;
}

// ─── site settings ────────────────────────────────────────────────────────────────────────────────

export async function getAdminSettings(db: DB): Promise<AdminSettings> {
  return { ...(await getSiteSettings(db)), version: await repo.settingsVersion(db) };
}

export async function updateSettings(deps: AppDeps, actor: Actor, input: SettingsInput): Promise<AdminSettings> {
  const save = () =>
    deps.db.transaction().execute(async (trx) => {
      const before = await getAdminSettings(trx);
      if (input.version !== undefined && input.version !== before.version) throw new StaleSave();
      // Left out (an older console, a script), the listed video origins stay as they are.
      const origins = input.videoOrigins ? [...new Set(input.videoOrigins)] : before.videoOrigins;
      await saveSiteSettings(trx, {
        titleEn: input.titleEn,
        titleAr: input.titleAr,
        primaryColor: input.primaryColor.toLowerCase(),
        siteUnderMaintenance: input.siteUnderMaintenance,
        videoOrigins: origins,
        updatedAt: new Date().toISOString(),
      });
      const changes: Record<string, unknown> = {};
      if (before.titleEn !== input.titleEn) changes.titleEn = { from: before.titleEn, to: input.titleEn };
      if (before.titleAr !== input.titleAr) changes.titleAr = { from: before.titleAr, to: input.titleAr };
      if (before.primaryColor !== input.primaryColor.toLowerCase())
        changes.primaryColor = { from: before.primaryColor, to: input.primaryColor.toLowerCase() };
      if (before.siteUnderMaintenance !== input.siteUnderMaintenance)
        changes.siteUnderMaintenance = { from: before.siteUnderMaintenance, to: input.siteUnderMaintenance };
      if (origins.join("\n") !== before.videoOrigins.join("\n"))
        changes.videoOrigins = { from: before.videoOrigins, to: origins };
      const action = changes.siteUnderMaintenance
        ? input.siteUnderMaintenance
          ? "settings.maintenance_on"
          : "settings.maintenance_off"
        : "settings.update";
      // Conditional on the version read: of two saves racing from one version, the second finds 0 rows.
      const version = await repo.bumpSettingsVersion(trx, before.version);
      if (version === null) throw new StaleSave();
      await audit(trx, actor, action, { type: "settings", id: "site" }, changes);
      // The version this save wrote and the settings as it left them (its transaction holds the row): read after
      // the commit, they could be a later save's, and a console saving from that version would undo it unwarned.
      return { ...(await getSiteSettings(trx)), version };
    });
  return savedOrStale(save, () => getAdminSettings(deps.db));
}
