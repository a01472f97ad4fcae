import { randomUUID } from "node:crypto";
import { createReadStream, existsSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";
import type { PublicBucket } from "@hikaya/contracts";
import { DEFAULT_PRIMARY_COLOR, PUBLIC_BUCKETS, publicObjectPath, STORY_MEDIA_BUCKET, storyMediaPath } from "@hikaya/contracts";
import type { FastifyBaseLogger } from "fastify";
import type { Insertable } from "kysely";
import { z } from "zod";
import { REPO_ROOT } from "../config.ts";
import { isUniqueViolation } from "../db/dialect.ts";
import type { Database } from "../db/schema.ts";
import type { AppDeps } from "../deps.ts";
import { contentTypeFor } from "../infrastructure/files/index.ts";
import { DEFAULT_TITLE, saveSiteSettings } from "../modules/settings/settings.service.ts";

export const DEMO_DIR = join(REPO_ROOT, "apps/server/demo");

const text = z.object({ en: z.string(), ar: z.string() });
const filePath = z.string().regex(/^[a-z-]+\/[A-Za-z0-9._/-]+$/);
const programSchema = z.object({
  characters: z.array(z.object({ key: z.string(), name: text, thumbnail: filePath, audio: filePath })),
  stories: z.array(
    z.object({
      order: z.number().int().positive(),
      title: text,
      subtitle: text,
      video: filePath,
      /** The Arabic files (on-screen text and narration in Arabic) beside the English ones. */
      videoAr: filePath.optional(),
      thumbnail: filePath,
      thumbnailAr: filePath.optional(),
      durationSeconds: z.number().optional(),
      questions: z.array(
        z.object({
          media: filePath,
          mediaAr: filePath.optional(),
          answers: z.array(z.object({ character: z.string(), audio: filePath })),
        }),
      ),
    }),
  ),
  landing: z.object({
    video: filePath,
    videoAr: filePath.optional(),
    answers: z.array(z.object({ character: z.string(), audio: filePath })),
  }),
  greetingAudio: filePath,
  instructions: z.array(z.object({ location: z.string(), video: filePath, videoAr: filePath.optional() })),
  documents: z.object({ termsAndCondition: filePath, privacyAndPolicy: filePath }),
});
export type DemoProgram = z.infer<typeof programSchema>;

export function readDemoProgram(): DemoProgram {
  return programSchema.parse(JSON.parse(readFileSync(join(DEMO_DIR, "program.json"), "utf8")));
}

/**
 * On the first start of an empty database, load the demo program: copy its files into storage and
 * write its rows in one transaction. A database that already has stories is left alone, so the seed
 * never overwrites what operators changed. Safe when several replicas start at once. True when this start seeded it.
 */
export async function seedDemoProgram(deps: AppDeps, log: FastifyBaseLogger): Promise<boolean> {
  const { db, storage } = deps;
  const existing = await db.selectFrom("stories").select("id").limit(1).executeTakeFirst();
  if (existing || !existsSync(join(DEMO_DIR, "program.json"))) return false;
  const program = readDemoProgram();
  const started = Date.now();

  const stored = new Set<string>();
  /** Copies one demo file into its bucket (once) and returns [bucket, key]. */
  const store = async (path: string, key?: string): Promise<string> => {
    const [bucket, ...rest] = path.split("/");
    if (!PUBLIC_BUCKETS.includes(bucket as PublicBucket)) throw new Error(`demo file in unknown bucket: ${path}`);
    const objectKey = key ?? rest.join("/");
    const id = `${bucket}/${objectKey}`;
    if (!stored.has(id)) {
      await storage.put(bucket as PublicBucket, objectKey, createReadStream(join(DEMO_DIR, "files", path)), contentTypeFor(path));
      stored.add(id);
    }
    return publicObjectPath(bucket as PublicBucket, objectKey);
  };
  const privateRefs = new Map<string, string>();
  /**
   * Copies one of a story's media (video, question media, answer) into private storage under a random name, so
   * it is reached only through the signed links given to people the story is open to (storage/story-media.ts).
   */
  const storePrivate = async (path: string): Promise<string> => {
    let ref = privateRefs.get(path);
    if (!ref) {
      const key = `${randomUUID()}${extname(path).toLowerCase()}`;
      await storage.put(STORY_MEDIA_BUCKET, key, createReadStream(join(DEMO_DIR, "files", path)), contentTypeFor(path));
      ref = storyMediaPath(key);
      privateRefs.set(path, ref);
    }
    return ref;
  };

  const now = new Date().toISOString();
  const characterIds = new Map<string, string>();
  const characters: Insertable<Database["characters"]>[] = [];
  for (const c of program.characters) {
    const id = randomUUID();
    characterIds.set(c.key, id);
    characters.push({
      id,
      key: c.key,
      name_en: c.name.en,
      name_ar: c.name.ar,
      thumbnail_path: await store(c.thumbnail),
      audio_path: await store(c.audio),
      created_at: now,
    });
  }
  const characterId = (key: string) => {
    const id = characterIds.get(key);
    if (!id) throw new Error(`demo answer names unknown character ${key}`);
    return id;
  };

  const stories: Insertable<Database["stories"]>[] = [];
  const questions: Insertable<Database["questions"]>[] = [];
  const answers: Insertable<Database["answers"]>[] = [];
  for (const s of program.stories) {
    const id = randomUUID();
    // Spec section 3: the thumbnail object is named by the story id; the Arabic one by the id and "-ar".
    await store(s.thumbnail, id);
    const thumbnailAr = s.thumbnailAr ? await store(s.thumbnailAr, `${id}-ar`) : null;
    stories.push({
      id,
      position: s.order,
      title_en: s.title.en,
      title_ar: s.title.ar,
      subtitle_en: s.subtitle.en,
      subtitle_ar: s.subtitle.ar,
      video_url: await storePrivate(s.video),
      video_url_ar: s.videoAr ? await storePrivate(s.videoAr) : null,
      thumbnail_path: publicObjectPath("thumbnails", id),
      thumbnail_path_ar: thumbnailAr,
      duration_seconds: s.durationSeconds ?? null,
      created_at: now,
      updated_at: now,
    });
    for (const [qi, q] of s.questions.entries()) {
      const questionId = randomUUID();
      questions.push({
        id: questionId,
        story_id: id,
        position: qi + 1,
        media_path: await storePrivate(q.media),
        media_path_ar: q.mediaAr ? await storePrivate(q.mediaAr) : null,
        created_at: now,
      });
      for (const [ai, a] of q.answers.entries()) {
        answers.push({
          id: randomUUID(),
          question_id: questionId,
          character_id: characterId(a.character),
          audio_path: await storePrivate(a.audio),
          position: ai + 1,
          created_at: now,
        });
      }
    }
  }
  const landingAnswers: Insertable<Database["landing_answers"]>[] = [];
  for (const [i, a] of program.landing.answers.entries()) {
    landingAnswers.push({
      id: randomUUID(),
      character_id: characterId(a.character),
      audio_path: await store(a.audio),
      position: i + 1,
      created_at: now,
    });
  }
  const instructions: Insertable<Database["instructions"]>[] = [];
  for (const ins of program.instructions) {
    // The landing page's intro is the "Landing Page" instruction, so operators replace it in one place.
    const [video, videoAr] =
      ins.location === "Landing Page" ? [program.landing.video, program.landing.videoAr] : [ins.video, ins.videoAr];
    instructions.push({
      location: ins.location,
      media_path: await store(video),
      media_path_ar: videoAr ? await store(videoAr) : null,
      updated_at: now,
    });
  }
  const documents = [
    { key: "termsAndCondition", path: await store(program.documents.termsAndCondition), path_ar: null, updated_at: now },
    { key: "privacyAndPolicy", path: await store(program.documents.privacyAndPolicy), path_ar: null, updated_at: now },
    { key: "greetingAudio", path: await store(program.greetingAudio), path_ar: null, updated_at: now },
    {
      key: "landingVideo",
      path: await store(program.landing.video),
      path_ar: program.landing.videoAr ? await store(program.landing.videoAr) : null,
      updated_at: now,
    },
  ];

  try {
    await db.transaction().execute(async (trx) => {
      await trx.insertInto("characters").values(characters).execute();
      await trx.insertInto("stories").values(stories).execute();
      await trx.insertInto("questions").values(questions).execute();
      await trx.insertInto("answers").values(answers).execute();
      if (landingAnswers.length) await trx.insertInto("landing_answers").values(landingAnswers).execute();
      await trx.insertInto("instructions").values(instructions).execute();
      await trx.insertInto("documents").values(documents).execute();
      const settings = await trx.selectFrom("site_settings").select("id").executeTakeFirst();
      if (!settings)
        await saveSiteSettings(trx, {
          titleEn: DEFAULT_TITLE.en,
          titleAr: DEFAULT_TITLE.ar,
          primaryColor: DEFAULT_PRIMARY_COLOR,
          siteUnderMaintenance: false,
          updatedAt: now,
        });
    });
  } catch (error) {
    // Another replica seeded first: its rows stand, ours are rolled back.
    if (isUniqueViolation(error)) return false;
    throw error;
  }
  log.info({ stories: stories.length, questions: questions.length, ms: Date.now() - started }, "demo program seeded");
  return true;
}
