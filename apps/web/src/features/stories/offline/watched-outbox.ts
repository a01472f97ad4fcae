/**
 * "Watched" recorded while offline (issue 38): a story finished with no network is kept here, in this browser, and
 * sent when the network returns, as a take recorded offline is (api/recordings.ts). The server decides what it
 * unlocks; until it has heard, the next story stays locked.
 */
import { ApiError } from "../../../lib/api-client.ts";
import { getUserId } from "../../../lib/session.ts";

const OUTBOX_KEY = "hikaya-watched-outbox";

export interface PendingWatch {
  userId: string;
  storyId: string;
  at: string;
}

function read(): PendingWatch[] {
  try {
    const list = JSON.parse(localStorage.getItem(OUTBOX_KEY) ?? "[]") as unknown;
    return Array.isArray(list) ? (list as PendingWatch[]) : [];
  } catch {
    return [];
  }
}

function write(list: PendingWatch[]) {
  try {
    if (list.length === 0) localStorage.removeItem(OUTBOX_KEY);
    else localStorage.setItem(OUTBOX_KEY, JSON.stringify(list));
  } catch {
    // Storage refused: the story is watched again next time instead.
  }
}

export function queueWatched(storyId: string): void {
  const userId = getUserId();
  if (!userId) return;
  const list = read().filter((item) => !(item.userId === userId && item.storyId === storyId));
  write([...list, { userId, storyId, at: new Date().toISOString() }]);
}

export function pendingWatches(): PendingWatch[] {
  const userId = getUserId();
  return read().filter((item) => item.userId === userId);
}

let flushing: Promise<number> | null = null;

/**
 * Sends the signed-in person's pending "watched", oldest first, through `send`; stops at the first network failure
 * and keeps the rest (a signed-out session and a busy server too). One the server refuses (a story removed meanwhile) is
 * dropped: it would be refused every time.
 * Answers how many reached the server.
 */
export function flushWatched(send: (item: PendingWatch) => Promise<unknown>): Promise<number> {
  if (flushing) return flushing;
  const run = sendPending(send);
  flushing = run;
  // Cleared only once this run is over: with nothing pending it ends before `flushing` is even set.
  void run.finally(() => {
    if (flushing === run) flushing = null;
  });
  return run;
}

async function sendPending(send: (item: PendingWatch) => Promise<unknown>): Promise<number> {
  let sent = 0;
  for (const item of pendingWatches()) {
    try {
      await send(item);
      sent++;
    } catch (error) {
      if (error instanceof ApiError && (error.code === "network" || error.status === 401 || error.status === 429)) break;
      if (error instanceof ApiError && error.status >= 500) break;
    }
    write(read().filter((other) => !(other.userId === item.userId && other.storyId === item.storyId)));
  }
  return sent;
}
