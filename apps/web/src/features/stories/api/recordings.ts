/**
 * Story recordings: POST /api/story/audio/add (multipart audio, story, index) with the type the browser
 * really recorded. A take is never lost: before uploading it is written to IndexedDB, and it is removed
 * only once the server has it, so a failed upload can be retried now or on a later visit.
 */
import { tokenApi } from "../../../lib/api-client.ts";
import { isRefusedFile } from "../../../lib/errors.ts";
import { getUserId } from "../../../lib/session.ts";

export interface PendingRecording {
  key: string;
  userId: string;
  storyId: string;
  index: number;
  blob: Blob;
  type: string;
  createdAt: string;
  /** Seconds, as the recorder measured them: the server keeps it for files that carry no length (WebM, MP4). */
  durationSeconds?: number;
}

const DB_NAME = "hikaya-recordings";
const STORE = "pending";

function openDb(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => {
      request.result.createObjectStore(STORE, { keyPath: "key" });
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function withStore<T>(mode: IDBTransactionMode, run: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await openDb();
  try {
    return await new Promise<T>((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const request = run(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(request.result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

export function pendingKey(storyId: string, index: number) {
  return `${getUserId() ?? "anonymous"}:${storyId}:${index}`;
}

export async function keepPending(
  storyId: string,
  index: number,
  blob: Blob,
  durationSeconds?: number,
): Promise<PendingRecording> {
  const item: PendingRecording = {
    key: pendingKey(storyId, index),
    userId: getUserId() ?? "anonymous",
    storyId,
    index,
    blob,
    ...(durationSeconds !== undefined ? { durationSeconds } : {}),
    type: blob.type,
    createdAt: new Date().toISOString(),
  };
  try {
    await withStore("readwrite", (s) => s.put(item));
  } catch {
    // Private mode may refuse IndexedDB; the take still lives in memory on this screen.
  }
  return item;
}

export async function listPending(): Promise<PendingRecording[]> {
  try {
    const all = await withStore("readonly", (s) => s.getAll() as IDBRequest<PendingRecording[]>);
    const me = getUserId() ?? "anonymous";
    return all.filter((r) => r.userId === me);
  } catch {
    return [];
  }
}

export async function dropPending(key: string) {
  try {
    await withStore("readwrite", (s) => s.delete(key));
  } catch {
    // nothing to drop
  }
}

export function extensionFor(type: string): string {
  if (type.includes("webm")) return "webm";
  if (type.includes("ogg")) return "ogg";
  if (type.includes("mp4") || type.includes("aac") || type.includes("m4a")) return "m4a";
  if (type.includes("wav")) return "wav";
  if (type.includes("mpeg")) return "mp3";
  return "bin";
}

export async function uploadRecording(item: Pick<PendingRecording, "storyId" | "index" | "blob" | "durationSeconds">) {
  const type = item.blob.type || "audio/webm";
  const form = new FormData();
  form.append("story", item.storyId);
  form.append("index", String(item.index));
  if (item.durationSeconds !== undefined && Number.isFinite(item.durationSeconds))
    form.append("duration", item.durationSeconds.toFixed(1));
  form.append("audio", new File([item.blob], `recording-${item.storyId}-${item.index}.${extensionFor(type)}`, { type }));
  return tokenApi<unknown>("/story/audio/add", form);
}

/** Keeps the take on the device, uploads it, and forgets it once the server has it, or has refused it for good. */
export async function saveRecording(storyId: string, index: number, blob: Blob, durationSeconds?: number) {
  const item = await keepPending(storyId, index, blob, durationSeconds);
  await uploadOrForget(item);
}

export async function retryPending(item: PendingRecording) {
  await uploadOrForget(item);
}

async function uploadOrForget(item: PendingRecording) {
  try {
    await uploadRecording(item);
  } catch (error) {
    // A take refused for what it is (longer than 10 minutes, unreadable) would be refused on every retry.
    if (isRefusedFile(error)) await dropPending(item.key);
    throw error;
  }
  await dropPending(item.key);
}
