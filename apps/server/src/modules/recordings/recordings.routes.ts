import {
  envelopeSchema,
  MAX_RECORDING_BYTES,
  recordingAudioQuerySchema,
  recordingIdParamsSchema,
  recordingListSchema,
  recordingSchema,
  recordingTranscriptInputSchema,
  userIdParamsSchema,
} from "@hikaya/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { AppError } from "../../errors.ts";
import { envelopeErrorResponses, errorResponses } from "../../plugins/http-schemas.ts";
import { multipartParts, registerMultipart } from "../../plugins/multipart.ts";
import { requireSelfOrAdmin, requireUser, requireUserUnlessSigned } from "../auth/guards.ts";
import { voiceCopyOf } from "../media/media.service.ts";
import { sendObject } from "../storage/object-response.ts";
import {
  checkRecordableStory,
  discardAudio,
  isValidLink,
  missingAudio,
  parseClaimedDuration,
  parseQuestionIndex,
  playableRecording,
  RECORDINGS_BUCKET,
  recordingsOf,
  type StoredAudio,
  saveRecording,
  saveRecordingTranscript,
  storeAudio,
} from "./recordings.service.ts";

const PRIVATE_CACHE = "private, max-age=0, must-revalidate";

const isTooLarge = (error: unknown) =>
  (error instanceof AppError && error.code === "payload_too_large") ||
  (error as { code?: string })?.code === "FST_REQ_FILE_TOO_LARGE";

/** Users' story recordings: upload (token API), their own list, and playback for the owner and admins. */
export async function recordingsRoutes(fastify: FastifyInstance) {
  await registerMultipart(fastify, {
    // One byte over the limit reaches the inspector, which refuses it with a clear 413.
    limits: { fileSize: MAX_RECORDING_BYTES + 1, files: 2, fields: 10, fieldSize: 256, parts: 12, headerPairs: 50 },
  });
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post(
    "/story/audio/add",
    {
      config: { access: "user", envelope: true },
      schema: {
        tags: ["token API"],
        summary: "Upload a recording for a story (multipart: audio, story, optional index and duration)",
        description:
          "The type is read from the file's bytes (WAV, WebM/Opus, Ogg, MP4/AAC, MP3), not its name. At most 25 MB and, " +
          "for WAV, 10 minutes. The story must not be Locked for the caller. `duration` (seconds, as the recorder measured " +
          "them) is kept as the recording's length when the file carries none (all but WAV).",
        consumes: ["multipart/form-data"],
        response: { 200: envelopeSchema(recordingSchema), ...envelopeErrorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const auth = await requireUser(request);
      if (!request.isMultipart()) throw new AppError("unsupported_media_type", "Send the recording as multipart/form-data");
      let stored: StoredAudio | null = null;
      let storyId: string | undefined;
      let indexRaw: string | undefined;
      let durationRaw: string | undefined;
      try {
        for await (const part of multipartParts(request)) {
          if (part.type === "file") {
            if (part.fieldname !== "audio" || stored) {
              part.file.resume();
              continue;
            }
            // When the story came first, a locked or unknown one is refused before any byte is stored
            // (the file is drained, not stored, so the client still reads the answer).
            if (storyId !== undefined) {
              const file = part.file;
              await checkRecordableStory(app.deps, auth, storyId).catch((error: unknown) => {
                file.resume();
                throw error;
              });
            }
            stored = await storeAudio(app.deps, auth.userId, part.file);
          } else if (part.fieldname === "story") {
            storyId = String(part.value).trim();
          } else if (part.fieldname === "index") {
            indexRaw = String(part.value);
          } else if (part.fieldname === "duration") {
            durationRaw = String(part.value);
          }
        }
        if (!stored) throw missingAudio();
        if (!storyId) throw new AppError("validation_failed", "story: is required");
        const questionIndex = parseQuestionIndex(indexRaw);
        const claimedSeconds = parseClaimedDuration(durationRaw);
        const story = await checkRecordableStory(app.deps, auth, storyId);
        return {
          code: 200 as const,
          data: await saveRecording(app.deps, auth, stored, story.id, questionIndex, claimedSeconds),
        };
      } catch (error) {
        await discardAudio(app.deps, stored);
        if (isTooLarge(error) && !request.raw.complete) {
          // Past the limit the rest of the body is not worth reading: stop parsing it and close the
          // connection once the 413 is sent, instead of receiving (say) another 75 MB only to drop it.
          request.raw.unpipe();
          reply.header("connection", "close");
        }
        throw error;
      }
    },
  );

  app.get(
    "/recordings",
    {
      config: { access: "user" },
      schema: {
        tags: ["recordings"],
        summary: "The caller's own recordings, newest first",
        response: { 200: recordingListSchema, ...errorResponses(401) },
      },
    },
    async (request, reply) => {
      const auth = await requireUser(request);
      reply.header("cache-control", "private, no-store");
      return recordingsOf(app.deps, auth.userId);
    },
  );

  app.get(
    "/users/:id/recordings",
    {
      config: { access: { self: "id", or: "admin" } },
      schema: {
        tags: ["recordings"],
        summary: "A user's recordings (themself or an admin)",
        params: userIdParamsSchema,
        response: { 200: recordingListSchema, ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      await requireSelfOrAdmin(request, request.params.id);
      reply.header("cache-control", "private, no-store");
      return recordingsOf(app.deps, request.params.id);
    },
  );

  app.put(
    "/recordings/:id/transcript",
    {
      config: { access: "user" },
      schema: {
        tags: ["recordings"],
        summary: "The words of one of the caller's own recordings (a versioned save; the keepsake book prints them)",
        params: recordingIdParamsSchema,
        body: recordingTranscriptInputSchema,
        response: { 200: recordingSchema, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => saveRecordingTranscript(app.deps, await requireUser(request), request.params.id, request.body),
  );

  app.route({
    method: ["GET", "HEAD"],
    url: "/recordings/:id/audio",
    // A signed link needs no token; without one the handler asks for the owner (or an admin).
    config: { access: "optional" },
    schema: {
      tags: ["recordings"],
      summary: "Play a recording (owner or admin, or a signed link from the list), with Range and ETag",
      params: recordingIdParamsSchema,
      querystring: recordingAudioQuerySchema,
    },
    handler: async (request, reply) => {
      const { expires, signature } = request.query;
      const signed = signature !== undefined && isValidLink(app.deps, request.params.id, expires, signature);
      if (signature !== undefined && !signed) throw new AppError("forbidden", "This link has expired or is not valid");
      const row = await playableRecording(
        app.deps,
        signed ? "signed-link" : await requireUserUnlessSigned(request),
        request.params.id,
      );
      // The loudness-normalised AAC copy once it is ready (modules/media), else the recording as it was sent.
      const key = (await voiceCopyOf(app.deps, RECORDINGS_BUCKET, row.object_key)) ?? row.object_key;
      return sendObject(request, reply, app.deps.storage, RECORDINGS_BUCKET, key, PRIVATE_CACHE);
    },
  });
}
