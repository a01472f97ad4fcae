import { useQueryClient } from "@tanstack/react-query";
import type { SyntheticEvent } from "react";
import { useCallback, useRef } from "react";

/** Whether a media element that failed on `src` should fetch fresh links: signed links only, once each. */
export function shouldRefreshLink(src: string, tried: ReadonlySet<string>): boolean {
  return /[?&]signature=/.test(src) && !tried.has(src);
}

/**
 * A story's video, question media and answers come as signed links that expire after about an hour (server:
 * modules/storage/story-media.ts). When a <video> or <audio> fails on such a link, for instance because the
 * page stayed open longer, the story's data is fetched again, which brings fresh links, and playback resumes
 * where it stopped. A link that fails again is not retried, so a real error cannot loop.
 * Spread the result onto the media element.
 */
export function useFreshMediaLinks(queryKey: readonly unknown[]) {
  const client = useQueryClient();
  const tried = useRef(new Set<string>());
  const resumeAt = useRef(0);
  const key = JSON.stringify(queryKey);
  const onError = useCallback(
    (event: SyntheticEvent<HTMLMediaElement>) => {
      const element = event.currentTarget;
      const src = element.getAttribute("src") ?? "";
      if (!shouldRefreshLink(src, tried.current)) return;
      tried.current.add(src);
      resumeAt.current = element.currentTime || 0;
      void client.invalidateQueries({ queryKey: JSON.parse(key) as unknown[] });
    },
    [client, key],
  );
  const onLoadedMetadata = useCallback((event: SyntheticEvent<HTMLMediaElement>) => {
    if (resumeAt.current > 0) {
      event.currentTarget.currentTime = resumeAt.current;
      resumeAt.current = 0;
    }
  }, []);
  return { onError, onLoadedMetadata };
}
