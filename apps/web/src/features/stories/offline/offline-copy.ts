/**
 * The next story, downloaded for offline (issue 38). Its files are kept in the Cache API under stable addresses,
 * `/offline/<story>/…`, which the service worker answers (public/offline-sw.js): the signed links they came from
 * expire, and offline no new ones can be asked for. Kept: the lowest rung (or the sound alone in "Audio only"; the
 * original file when the video was never processed), the poster, the captions, each question's media in the same
 * way, each answer's audio and the family members' pictures, and a record (`copy.json`, written last) with the
 * story, its questions and answers and the list, pointing at those addresses. Only a story the server hands over is
 * downloaded: a locked one's links are never given out. Reading and removing copies is here; the download itself is
 * `download.ts`, loaded when a person asks for one.
 */
import type { Story } from "@hikaya/contracts";
import { ApiError } from "../../../lib/api-client.ts";
import type { Language } from "../../../lib/i18n.ts";
import { getUserId } from "../../../lib/session.ts";
import { OFFLINE_PREFIX } from "../../../lib/stream-source.ts";
import type { Answer, Question } from "../api/question-types.ts";

export const OFFLINE_CACHE = "hikaya-offline";
/** Which stories this browser was asked to keep, per person: a copy missing from the cache was removed by it. */
const NOTES_KEY = "hikaya-offline-stories";
export const COPY_VERSION = 1;

export interface OfflineCopy {
  version: number;
  userId: string;
  storyId: string;
  language: Language;
  savedAt: string;
  bytes: number;
  /** Every address the copy needs (the record itself aside). */
  files: string[];
  story: Story;
  questions: Question[];
  answers: Answer[];
  /** The list as it was, so the questions screen finds the story offline. */
  list: Story[];
}

export type CopyState = { kind: "none" } | { kind: "ready"; bytes: number } | { kind: "removed" };

/** The Cache API and a service worker in control: without both, a copy could not play. */
export function offlineSupported(): boolean {
  return typeof caches !== "undefined" && typeof navigator !== "undefined" && "serviceWorker" in navigator;
}

const canPlayCopies = () => offlineSupported() && Boolean(navigator.serviceWorker.controller);

export const base = (storyId: string) => `${OFFLINE_PREFIX}${encodeURIComponent(storyId)}/`;
export const recordOf = (storyId: string) => `${base(storyId)}copy.json`;
export const absolute = (path: string) => new URL(path, window.location.origin).href;

type Notes = Record<string, { bytes: number; savedAt: string }>;
const noteKey = (userId: string, storyId: string) => `${userId}:${storyId}`;

function readNotes(): Notes {
  try {
    return JSON.parse(localStorage.getItem(NOTES_KEY) ?? "{}") as Notes;
  } catch {
    return {};
  }
}

export function writeNote(userId: string, storyId: string, note: Notes[string] | null) {
  const notes = readNotes();
  if (note) notes[noteKey(userId, storyId)] = note;
  else delete notes[noteKey(userId, storyId)];
  try {
    localStorage.setItem(NOTES_KEY, JSON.stringify(notes));
  } catch {
    // Storage refused (private mode): the copy still works, only its disappearance goes unnoticed.
  }
}

async function readRecord(storyId: string): Promise<OfflineCopy | null> {
  if (!offlineSupported()) return null;
  try {
    const cache = await caches.open(OFFLINE_CACHE);
    const stored = await cache.match(absolute(recordOf(storyId)));
    if (!stored) return null;
    const copy = (await stored.json()) as OfflineCopy;
    if (copy.version !== COPY_VERSION) return null;
    const kept = new Set((await cache.keys()).map((request) => new URL(request.url).pathname));
    return copy.files.every((file) => kept.has(file)) ? copy : null;
  } catch {
    return null;
  }
}

/** Whether the signed-in person has this story on the device, or had it until the browser removed it. */
export async function copyState(storyId: string): Promise<CopyState> {
  const userId = getUserId();
  if (!userId) return { kind: "none" };
  const copy = await readRecord(storyId);
  if (copy && copy.userId === userId) return { kind: "ready", bytes: copy.bytes };
  return readNotes()[noteKey(userId, storyId)] ? { kind: "removed" } : { kind: "none" };
}

/**
 * The person's complete copy of a story, when it can play (a service worker answers its addresses). In `language`
 * only, unless `anyLanguage`: online, a copy in the other language is left for the network's files.
 */
export async function readCopy(storyId: string, language: Language, anyLanguage = false): Promise<OfflineCopy | null> {
  if (!canPlayCopies()) return null;
  const copy = await readRecord(storyId);
  if (!copy || copy.userId !== getUserId()) return null;
  return anyLanguage || copy.language === language ? copy : null;
}

/** The newest copy of the person's, whatever the story: offline, its list stands in for the server's. */
export async function latestCopy(): Promise<OfflineCopy | null> {
  const userId = getUserId();
  if (!userId || !canPlayCopies()) return null;
  const ids = Object.entries(readNotes())
    .filter(([key]) => key.startsWith(`${userId}:`))
    .sort(([, a], [, b]) => b.savedAt.localeCompare(a.savedAt))
    .map(([key]) => key.slice(userId.length + 1));
  for (const id of ids) {
    const copy = await readCopy(id, "en", true);
    if (copy) return copy;
  }
  return null;
}

export const isNetworkFailure = (error: unknown) => error instanceof ApiError && error.code === "network";

/** Removes a story's files and the note that it was kept. */
export async function removeCopy(storyId: string): Promise<void> {
  const userId = getUserId();
  if (userId) writeNote(userId, storyId, null);
  if (!offlineSupported()) return;
  const cache = await caches.open(OFFLINE_CACHE);
  const prefix = base(storyId);
  for (const request of await cache.keys()) {
    if (new URL(request.url).pathname.startsWith(prefix)) await cache.delete(request);
  }
}
