import { type RefObject, useEffect } from "react";
import { savePlaybackPosition } from "./api/stories.ts";

/** How often a playing story's position is written: a dropped connection loses at most this much (issue 38). */
export const POSITION_SAVE_MS = 10_000;
/** A position this close to the end starts the story again: the person had watched it. */
const END_MARGIN_SECONDS = 3;

/**
 * Resumes a story at the second the person left it (on any device: the server keeps it), and keeps that second:
 * every POSITION_SAVE_MS while playing, on pause, and when the page or the player goes (a keepalive write). At the
 * end it goes back to 0, so watching again starts from the beginning.
 */
export function usePlaybackPosition(
  video: RefObject<HTMLVideoElement | null>,
  storyId: string,
  startAt: number,
  attached: boolean,
) {
  useEffect(() => {
    const el = video.current;
    if (!el || !attached) return;
    const resume = () => {
      if (startAt > 0 && (!Number.isFinite(el.duration) || startAt < el.duration - END_MARGIN_SECONDS)) el.currentTime = startAt;
    };
    if (el.readyState >= HTMLMediaElement.HAVE_METADATA) resume();
    else el.addEventListener("loadedmetadata", resume, { once: true });

    let saved = Math.floor(startAt);
    let savedAt = Date.now();
    const save = (keepalive = false) => {
      const seconds = el.ended ? 0 : Math.floor(el.currentTime);
      if (seconds === saved) return;
      saved = seconds;
      savedAt = Date.now();
      void savePlaybackPosition(storyId, seconds, keepalive).catch(() => undefined);
    };
    const onTime = () => {
      if (Date.now() - savedAt >= POSITION_SAVE_MS) save();
    };
    const onPause = () => save();
    const onLeave = () => save(true);
    el.addEventListener("timeupdate", onTime);
    el.addEventListener("pause", onPause);
    el.addEventListener("ended", onPause);
    window.addEventListener("pagehide", onLeave);
    return () => {
      el.removeEventListener("loadedmetadata", resume);
      el.removeEventListener("timeupdate", onTime);
      el.removeEventListener("pause", onPause);
      el.removeEventListener("ended", onPause);
      window.removeEventListener("pagehide", onLeave);
      onLeave();
    };
  }, [video, storyId, startAt, attached]);
}
