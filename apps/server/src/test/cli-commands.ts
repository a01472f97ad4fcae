import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { ChatMessage } from "@hikaya/contracts";
import type { App } from "../deps.ts";
import { multipart as formOf, wavBytes } from "../modules/messages/messages.test-helpers.ts";
import { multipart, wav } from "../modules/recordings/test-fixtures.ts";

const exec = promisify(execFile);

/** Runs one of the operator commands (src/cli/<name>.ts) with exactly `env`, as `npm run <name>` would. */
export async function runCommand(name: string, args: string[], env: Record<string, string>) {
  const file = fileURLToPath(new URL(`../cli/${name}.ts`, import.meta.url));
  const { PATH, HOME } = process.env;
  return exec(process.execPath, [file, ...args], { env: { PATH: PATH ?? "", HOME: HOME ?? "", ...env } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      stdout: error.stdout,
      stderr: error.stderr,
    }),
  );
}

export interface Person {
  id: string;
  phone: string;
  password: string;
  token: string;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A person who signed up by phone, watched the first story, recorded an answer and sent a text and a voice note. */
export async function activePerson(app: App): Promise<Person> {
  const national = `79${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;
  const password = "moving-pass-1";
  const signUp = await app.inject({
    method: "POST",
    url: "/api/sign-up",
    payload: { country: "JO", phoneNumber: national, password },
  });
  if (signUp.statusCode !== 200) throw new Error(`sign-up: ${signUp.body}`);
  const { token, user } = signUp.json() as { token: string; user: { id: string } };
  const stories = (await app.inject({ url: "/api/stories", headers: bearer(token) })).json() as { _id: string }[];
  const storyId = stories[0]?._id as string;
  const watched = await app.inject({ method: "POST", url: `/api/users/me/watchStory/${storyId}`, headers: bearer(token) });
  if (watched.statusCode !== 200) throw new Error(`watch: ${watched.body}`);
  const recording = multipart([
    { name: "audio", filename: "take.wav", type: "audio/wav", data: wav(1) },
    { name: "story", value: storyId },
    { name: "index", value: "0" },
  ]);
  const recorded = await app.inject({
    method: "POST",
    url: "/api/story/audio/add",
    headers: { ...bearer(token), "content-type": recording.contentType },
    payload: recording.payload,
  });
  if (recorded.statusCode !== 200) throw new Error(`record: ${recorded.body}`);
  const sends: Record<string, string>[] = [
    { message: "hello from the old server", messageType: "text" },
    { message: "audio", messageType: "audio", durationSeconds: "0.5" },
  ];
  for (const fields of sends) {
    const form = await formOf(fields, fields.messageType === "audio" ? { bytes: wavBytes(0.5) } : undefined);
    const sent = await app.inject({
      method: "POST",
      url: "/api/message/send",
      headers: { ...bearer(token), ...form.headers },
      payload: form.payload,
    });
    if (sent.statusCode !== 200) throw new Error(`message: ${sent.body}`);
  }
  return { id: user.id, phone: `+962${national}`, password, token };
}

/** What a person finds after signing in: progress, recordings (playable), messages (voice note playable). */
export async function whatTheyFind(app: App, person: Person) {
  const signIn = await app.inject({
    method: "POST",
    url: "/auth/v1/token?grant_type=password",
    headers: { apikey: app.deps.auth.keys.anonKey },
    payload: { phone: person.phone, password: person.password },
  });
  if (signIn.statusCode !== 200) return { signedIn: false as const, status: signIn.statusCode };
  const token = (signIn.json() as { access_token: string }).access_token;
  const stories = (await app.inject({ url: "/api/stories", headers: bearer(token) })).json() as { watchStatus?: string }[];
  const recordings = (await app.inject({ url: "/api/recordings", headers: bearer(token) })).json() as { id: string }[];
  const audio = await Promise.all(
    recordings.map(async (r) => (await app.inject({ url: `/api/recordings/${r.id}/audio`, headers: bearer(token) })).statusCode),
  );
  const listed = await app.inject({ method: "POST", url: "/api/messages", headers: bearer(token), payload: { limit: 50 } });
  const messages = (listed.json() as { data: { messages: ChatMessage[] } }).data.messages;
  const voice = messages.find((m) => m.messageType === "audio");
  const voiceStatus = voice ? (await app.inject({ url: voice.message, headers: bearer(token) })).statusCode : null;
  return {
    signedIn: true as const,
    firstStory: stories[0]?.watchStatus,
    recordings: recordings.length,
    audio,
    texts: messages.filter((m) => m.messageType === "text").map((m) => m.message),
    voiceStatus,
  };
}
