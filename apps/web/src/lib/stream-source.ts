import type { MediaStream, ViewingMode } from "@hikaya/contracts";
import { type RefObject, useEffect, useState } from "react";
import { api } from "./api-client.ts";

/**
 * Story videos on a weak connection (issue 29): once the server has processed a video it answers an HLS master
 * playlist (240p to 720p) beside the original. Safari and iOS play HLS themselves; elsewhere hls.js does, loaded
 * by `import()` only for a story that has a stream, so no first-visit bundle carries it. It starts on the lowest
 * rendition and climbs as the connection allows. Without a stream, or if streaming fails, the original plays.
 * Every player of a stored video picks its source here (`useStreamSource`, `StreamedVideo`): the story, its
 * questions, the instruction and landing videos. Plain fetches, no query library: the landing page is a first visit.
 */

export const HLS_TYPE = "application/vnd.apple.mpegurl";

/**
 * Where a story downloaded for offline keeps its files (features/stories/offline): addresses the service worker
 * (public/offline-sw.js) answers from the Cache API, never the network.
 */
export const OFFLINE_PREFIX = "/offline/";
export const isOfflineAddress = (src: string) => src.startsWith(OFFLINE_PREFIX);
const isPlaylist = (src: string) => /\.m3u8(?:$|\?)/.test(src);

const answers = new Map<string, { at: number; answer: Promise<MediaStream | null> }>();
/** How long an answer is reused: processing may finish, captions may be added, while a person stays on the page. */
const ANSWER_MS = 60_000;

/**
 * What the server knows of a video's processed versions, reused for a minute per address; null when there is none
 * or the question failed: play the original.
 */
export function fetchMediaStream(src: string): Promise<MediaStream | null> {
  const kept = answers.get(src);
  if (kept && Date.now() - kept.at < ANSWER_MS) return kept.answer;
  // A downloaded file is already the version to play; the server does not know its address.
  if (isOfflineAddress(src)) return Promise.resolve(null);
  const answer = api<MediaStream>(`/media/stream?src=${encodeURIComponent(src)}`).catch(() => {
    answers.delete(src);
    return null;
  });
  answers.delete(src);
  // A long session sees many signed links; the oldest answers go first.
  if (answers.size >= 100) answers.delete(answers.keys().next().value as string);
  answers.set(src, { at: Date.now(), answer });
  return answer;
}

type ModeSizes = NonNullable<MediaStream["sizes"]>;
const SIZE_OF: Record<ViewingMode, (sizes: ModeSizes) => number | null> = {
  best: (sizes) => sizes.best,
  save_data: (sizes) => sizes.saveData,
  audio_only: (sizes) => sizes.audioOnly,
};

/**
 * The bytes a video costs in a viewing mode (issue 38: the story card and the player say it, "4.2 MB"); a stream with
 * no sound-alone variant plays its lowest rung instead.
 */
export const modeSize = (mode: ViewingMode, sizes: ModeSizes): number => SIZE_OF[mode](sizes) ?? sizes.saveData;

/**
 * What the video at `src` costs in `mode`, once the server has said (the answer is shared with the player, which
 * asks about the same link): null while unknown, for a video not processed, or without an address or a mode.
 */
export function useStreamSize(src: string | null | undefined, mode: ViewingMode | null): number | null {
  const [sizes, setSizes] = useState<{ src: string; sizes: ModeSizes | null } | null>(null);
  useEffect(() => {
    if (!src) return;
    let live = true;
    void fetchMediaStream(src).then((stream) => {
      if (live) setSizes({ src, sizes: stream?.hls ? (stream.sizes ?? null) : null });
    });
    return () => {
      live = false;
    };
  }, [src]);
  const known = sizes !== null && sizes.src === src ? sizes.sizes : null;
  return known && mode ? modeSize(mode, known) : null;
}

/**
 * Keeps a stream the server already sent with the video's link (a story's own answer, issue 38), so the player does
 * not ask about it again before its first segment.
 */
export function rememberMediaStream(src: string, stream: MediaStream): void {
  answers.set(src, { at: Date.now(), answer: Promise.resolve(stream) });
}

/**
 * Points `video` at `src` or its HLS version, once the server said which exists. Returns the stream (poster,
 * captions) and whether a source is attached: a player starts playing only then.
 */
export function useStreamSource(
  video: RefObject<HTMLVideoElement | null>,
  src: string | null,
  mode: ViewingMode | null = "best",
) {
  const [state, setState] = useState<{ src: string; stream: MediaStream | null } | null>(null);
  useEffect(() => {
    const el = video.current;
    // No mode yet (the account is on its way): waiting costs less than fetching a rung the person did not want.
    if (!el || !src || !mode) return;
    let live = true;
    let undo = () => {};
    prefetchHls(el);
    void fetchMediaStream(src).then(async (stream) => {
      if (!live) return;
      const detach = await attachSource(el, src, stream, loadHls, mode);
      if (!live) return detach();
      undo = detach;
      setState({ src, stream });
    });
    return () => {
      live = false;
      undo();
    };
  }, [video, src, mode]);
  const current = state?.src === src ? state : null;
  return { stream: current?.stream ?? null, attached: current !== null };
}

type Video = Pick<HTMLVideoElement, "canPlayType" | "play"> & { src: string };

/** The part of hls.js used here, so a test can stand in for it. */
export interface HlsModule {
  isSupported(): boolean;
  new (config: {
    startLevel: number;
    capLevelToPlayerSize: boolean;
    maxBufferLength?: number;
    maxMaxBufferLength?: number;
  }): {
    on(event: string, listener: (event: string, data: { fatal: boolean }) => void): void;
    loadSource(url: string): void;
    attachMedia(media: HTMLMediaElement): void;
    destroy(): void;
    /** The highest rendition the player may climb to (-1: any). */
    autoLevelCapping: number;
  };
  Events: { ERROR: string };
}

let hlsModule: Promise<HlsModule> | null = null;

/** hls.js, fetched once per page; a failed fetch (offline, a new deploy) is tried again next time. */
function loadHls(): Promise<HlsModule> {
  hlsModule ??= import("hls.js/light").then(
    (m) => m.default as unknown as HlsModule,
    (error: unknown) => {
      hlsModule = null;
      throw error;
    },
  );
  return hlsModule;
}

/**
 * Starts fetching hls.js beside the question of whether a stream exists, in a browser that would play one with it
 * (no native HLS, but Media Source): on a slow phone connection its ~100 KB took 0.6 s after the answer, before the
 * first playlist was even asked for. A video with no stream yet (not processed) fetches it for nothing.
 */
export function prefetchHls(video: Pick<HTMLVideoElement, "canPlayType">, load: () => Promise<HlsModule> = loadHls): void {
  const mediaSource = "MediaSource" in globalThis || "ManagedMediaSource" in globalThis;
  if (!mediaSource || video.canPlayType(HLS_TYPE)) return;
  load().catch(() => undefined);
}

/**
 * How far ahead a saving mode buffers (issue 38): a person who leaves a story part-way pays for no more than this
 * beyond where they stopped. hls.js buffers 30 s by default but lets the buffer grow to 600 s on a fast link.
 */
export const SAVING_BUFFER_SECONDS = 30;

/**
 * Points `video` at the best source it can play in the person's viewing mode: native HLS, hls.js, else the original
 * file. "audio_only" plays the sound-alone playlist (the poster stays on screen); "save_data" keeps hls.js to the
 * lowest rung. Returns what undoes it (hls.js holds a MediaSource and network requests until destroyed).
 */
export async function attachSource(
  video: Video,
  original: string,
  stream: MediaStream | null | undefined,
  load: () => Promise<HlsModule> = loadHls,
  mode: ViewingMode = "best",
): Promise<() => void> {
  const saving = mode !== "best";
  // A stream processed before issue 38 has no sound-alone variant: its lowest rung is the next cheapest. A downloaded
  // question's "original" is the rung it kept, a playlist itself.
  const hlsUrl = (mode === "audio_only" ? stream?.audioOnly : null) ?? stream?.hls ?? (isPlaylist(original) ? original : null);
  if (!hlsUrl) {
    video.src = original;
    return () => {};
  }
  // A downloaded rung plays through hls.js wherever Media Source exists: a browser's own HLS player may fetch its
  // segments past the service worker, which alone can answer them offline.
  const mediaSource = "MediaSource" in globalThis || "ManagedMediaSource" in globalThis;
  if (video.canPlayType(HLS_TYPE) && !(isOfflineAddress(hlsUrl) && mediaSource)) {
    video.src = hlsUrl;
    return () => {};
  }
  let Hls: HlsModule;
  try {
    Hls = await load();
  } catch {
    // The chunk could not be fetched (offline, a new deploy): the original still plays.
    video.src = original;
    return () => {};
  }
  if (!Hls.isSupported()) {
    video.src = original;
    return () => {};
  }
  const hls = new Hls({
    startLevel: 0,
    // hls.js's player-size cap writes its own autoLevelCapping on every attach and resize, which would lift "Save data"
    // off the lowest rung (the media bench saw it fetch as many bytes as best quality); that mode caps harder anyway.
    capLevelToPlayerSize: mode !== "save_data",
    ...(saving ? { maxBufferLength: SAVING_BUFFER_SECONDS, maxMaxBufferLength: SAVING_BUFFER_SECONDS } : {}),
  });
  // hls.js leaves sound-alone variants out of a master with video: rung 0 is the lowest picture.
  if (mode === "save_data") hls.autoLevelCapping = 0;
  hls.on(Hls.Events.ERROR, (_event, data) => {
    if (!data.fatal) return;
    hls.destroy();
    video.src = original;
    void video.play().catch(() => undefined);
  });
  hls.loadSource(hlsUrl);
  hls.attachMedia(video as HTMLVideoElement);
  return () => hls.destroy();
}
