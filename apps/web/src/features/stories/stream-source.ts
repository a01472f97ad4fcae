import type { MediaStream } from "@hikaya/contracts";
import { useQuery } from "@tanstack/react-query";
import { api } from "../../lib/api-client.ts";

/**
 * Story videos on a weak connection (issue 29): once the server has processed a video it answers an HLS master
 * playlist (240p to 720p) beside the original. Safari and iOS play HLS themselves; elsewhere hls.js does, loaded
 * by `import()` only for a story that has a stream, so no first-visit bundle carries it. It starts on the lowest
 * rendition and climbs as the connection allows. Without a stream, or if streaming fails, the original plays.
 */

export const HLS_TYPE = "application/vnd.apple.mpegurl";

/** What the server knows of a video's processed versions; an error means none (play the original). */
export function useMediaStream(src: string) {
  return useQuery({
    queryKey: ["media-stream", src],
    queryFn: ({ signal }) => api<MediaStream>(`/media/stream?src=${encodeURIComponent(src)}`, { signal }),
    staleTime: 60_000,
    retry: false,
  });
}

type Video = Pick<HTMLVideoElement, "canPlayType" | "play"> & { src: string };

/** The part of hls.js used here, so a test can stand in for it. */
export interface HlsModule {
  isSupported(): boolean;
  new (config: {
    startLevel: number;
    capLevelToPlayerSize: boolean;
  }): {
    on(event: string, listener: (event: string, data: { fatal: boolean }) => void): void;
    loadSource(url: string): void;
    attachMedia(media: HTMLMediaElement): void;
    destroy(): void;
  };
  Events: { ERROR: string };
}

const loadHls = async (): Promise<HlsModule> => (await import("hls.js/light")).default as unknown as HlsModule;

/**
 * Points `video` at the best source it can play: native HLS, hls.js, else the original file. Returns what undoes
 * it (hls.js holds a MediaSource and network requests until destroyed).
 */
export async function attachSource(
  video: Video,
  original: string,
  stream: MediaStream | null | undefined,
  load: () => Promise<HlsModule> = loadHls,
): Promise<() => void> {
  const hlsUrl = stream?.hls;
  if (!hlsUrl) {
    video.src = original;
    return () => {};
  }
  if (video.canPlayType(HLS_TYPE)) {
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
  const hls = new Hls({ startLevel: 0, capLevelToPlayerSize: true });
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
