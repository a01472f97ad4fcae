import { LANGUAGE_COOKIE } from "@hikaya/contracts/constants";
import type { Browser } from "@playwright/test";
import type { SLOW_4G } from "./browser.ts";

export type Network = typeof SLOW_4G;

/** Issue 38's prepaid links, in kbit/s of 1,000 bits: the weakest, and the one that stalled 5.5 % before it. */
export const THIN_400: Network = {
  offline: false,
  latency: 400,
  downloadThroughput: (400 * 1000) / 8,
  uploadThroughput: (200 * 1000) / 8,
};
export const THIN_750: Network = {
  offline: false,
  latency: 300,
  downloadThroughput: (750 * 1000) / 8,
  uploadThroughput: (375 * 1000) / 8,
};
export const UNTHROTTLED: Network = { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 };

/** The longest a playback is watched (a progressive 5 Mbit/s file on 1.6 Mbit/s would take minutes for 30 s). */
const PLAY_LIMIT_MS = 50_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Playback {
  /** The first frame, or with the sound alone the first sound (the first time the clock moved), from the tap. */
  firstFrame: number;
  firstFrameFromSource: number;
  stalledMs: number;
  stalledShare: number;
  stalls: number;
  played: number;
  hd720: number;
  /** Bytes of stored files (playlists, segments, the poster, the original) fetched from the tap to the end. */
  bytes: number;
  watchedSeconds: number;
  limitMs: number;
}

/**
 * One visit to the story page in a fresh 390x844 phone context (3 device pixels per CSS pixel, as the phones of that
 * size have: hls.js caps its level to the player's device pixels), with nothing in its cache. `from: "list"`: the
 * family opens the app at its story list, and once it has loaded taps the story (times from the tap: how long a
 * video takes to start, as video players count it); `from: "link"`: the story page is the first page opened, as from a
 * reminder (times from the navigation, the app's own start included).
 * `original`: the page cannot use Media Source or native HLS, so the app plays the original file (its fallback).
 * The viewing mode is the account's, set before the visit.
 */
export async function play(
  browser: Browser,
  page: { url: string; storyId: string },
  storage: Record<string, string>,
  options: { network: Network; original: boolean; from: "list" | "link"; seconds: number; until720?: boolean },
): Promise<Playback> {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 3,
    isMobile: true,
    hasTouch: true,
    serviceWorkers: "block",
  });
  // The device chose Arabic: the cookie the app sets with the choice, so the server answers in it (as on a phone).
  await context.addCookies([{ name: LANGUAGE_COOKIE, value: storage.i18nextLng ?? "en", url: page.url }]);
  await context.addInitScript((items: Record<string, string>) => {
    for (const [key, value] of Object.entries(items)) localStorage.setItem(key, value);
  }, storage);
  // Plain strings: the bench has no DOM types. Chromium may play HLS itself; it is made to say it cannot, as most
  // Android and desktop browsers do, so hls.js is what plays the stream.
  await context.addInitScript(`(() => {
    const canPlayType = HTMLMediaElement.prototype.canPlayType;
    HTMLMediaElement.prototype.canPlayType = function (type) {
      return type.includes("mpegurl") ? "" : canPlayType.call(this, type);
    };
    if (${options.original}) { delete window.MediaSource; delete window.ManagedMediaSource; }
    const log = (window.__media = { events: [], frame: null, sound: null, source: null, start: 0 });
    for (const type of ["loadstart", "waiting", "playing", "resize", "timeupdate"])
      document.addEventListener(type, (event) => {
        const v = event.target;
        if (!(v instanceof HTMLVideoElement)) return;
        const t = performance.now();
        if (type === "timeupdate") {
          if (v.currentTime > 0 && log.sound === null) log.sound = t - log.start;
          return;
        }
        if (type === "loadstart" && log.source === null) {
          log.source = t;
          v.requestVideoFrameCallback(() => { log.frame ??= performance.now() - log.start; });
        }
        log.events.push({ type, t, time: v.currentTime, height: v.videoHeight });
      }, true);
  })()`);
  const tab = await context.newPage();
  const cdp = await context.newCDPSession(tab);
  await cdp.send("Network.emulateNetworkConditions", options.network);
  // Bytes on the wire per stored file, counted while they arrive (a segment cut off at the end still cost them).
  await cdp.send("Network.enable");
  const stored = new Set<string>();
  const received = new Map<string, number>();
  let counting = options.from === "link";
  cdp.on("Network.requestWillBeSent", (e: { requestId: string; request: { url: string } }) => {
    if (counting && e.request.url.includes("/storage/v1/")) stored.add(e.requestId);
  });
  cdp.on("Network.dataReceived", (e: { requestId: string; encodedDataLength: number }) => {
    if (stored.has(e.requestId)) received.set(e.requestId, (received.get(e.requestId) ?? 0) + e.encodedDataLength);
  });
  cdp.on("Network.loadingFinished", (e: { requestId: string; encodedDataLength: number }) => {
    if (stored.has(e.requestId)) received.set(e.requestId, Math.max(received.get(e.requestId) ?? 0, e.encodedDataLength));
  });
  if (options.from === "list") {
    await tab.goto(`${page.url}/`, { waitUntil: "networkidle" });
    const card = tab.locator(`a[href="/story/${page.storyId}"]`);
    await card.scrollIntoViewIfNeeded();
    await tab.evaluate("window.__media.start = performance.now()");
    counting = true;
    await card.click();
  } else await tab.goto(`${page.url}/story/${page.storyId}`, { waitUntil: "commit" });
  const started = Date.now();
  const done = options.until720
    ? "(document.querySelector('video.player__video')?.videoHeight ?? 0) >= 720"
    : `(document.querySelector('video.player__video')?.currentTime ?? 0) >= ${options.seconds}`;
  while (Date.now() - started < PLAY_LIMIT_MS && !(await tab.evaluate(done))) await sleep(200);
  const log = (await tab.evaluate(
    "({ ...window.__media, time: document.querySelector('video.player__video')?.currentTime ?? 0, now: performance.now() })",
  )) as {
    events: { type: string; t: number; time: number; height: number }[];
    frame: number | null;
    sound: number | null;
    source: number | null;
    start: number;
    time: number;
    now: number;
  };
  await context.close();

  // Stalls: from each `waiting` after playback began to the next `playing` (or the end of the watch).
  let stalledMs = 0;
  let stalls = 0;
  let since: number | null = null;
  let began = false;
  for (const e of log.events) {
    if (e.type === "playing") {
      if (since !== null) stalledMs += e.t - since;
      since = null;
      began = true;
    } else if (e.type === "waiting" && began && since === null) {
      since = e.t;
      stalls++;
    }
  }
  if (since !== null) stalledMs += log.now - since;
  const hd = log.events.find((e) => e.type === "resize" && e.height >= 720);
  // The sound alone draws no frame: its start is the first time the clock moved.
  const first = log.frame ?? log.sound;
  return {
    firstFrame: first ?? Number.POSITIVE_INFINITY,
    firstFrameFromSource: log.source !== null && first !== null ? first - (log.source - log.start) : Number.NaN,
    stalledMs,
    stalledShare: stalledMs / (options.seconds * 1000),
    stalls,
    played: log.time,
    hd720: hd ? hd.t - log.start : Number.POSITIVE_INFINITY,
    bytes: [...received.values()].reduce((a, b) => a + b, 0),
    watchedSeconds: options.seconds,
    limitMs: PLAY_LIMIT_MS,
  };
}
