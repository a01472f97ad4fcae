// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { renderHook } from "@testing-library/react";
import type { ReactNode, SyntheticEvent } from "react";
import { describe, expect, it, vi } from "vitest";
import { shouldRefreshLink, useFreshMediaLinks } from "./use-fresh-media-links.ts";

const SIGNED = "/storage/v1/object/sign/story-media/abc.mp4?expires=100&signature=xyz";

function setup() {
  const client = new QueryClient();
  const invalidate = vi.spyOn(client, "invalidateQueries").mockResolvedValue();
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={client}>{children}</QueryClientProvider>
  );
  const { result } = renderHook(() => useFreshMediaLinks(["stories", "s1"]), { wrapper });
  return { result, invalidate };
}

const eventOn = (element: HTMLMediaElement) => ({ currentTarget: element }) as unknown as SyntheticEvent<HTMLMediaElement>;

describe("fresh links for story media", () => {
  it("refreshes only signed links, once each", () => {
    expect(shouldRefreshLink(SIGNED, new Set())).toBe(true);
    expect(shouldRefreshLink(SIGNED, new Set([SIGNED]))).toBe(false);
    expect(shouldRefreshLink("/storage/v1/object/public/instructions/a.mp4", new Set())).toBe(false);
  });

  it("fetches the story again when a signed link fails, and resumes where playback stopped", () => {
    const { result, invalidate } = setup();
    const video = document.createElement("video");
    video.setAttribute("src", SIGNED);
    Object.defineProperty(video, "currentTime", { value: 42, writable: true });
    result.current.onError(eventOn(video));
    expect(invalidate).toHaveBeenCalledTimes(1);
    expect(invalidate).toHaveBeenCalledWith({ queryKey: ["stories", "s1"] });

    // The same link failing again (not an expiry) does not loop.
    result.current.onError(eventOn(video));
    expect(invalidate).toHaveBeenCalledTimes(1);

    const fresh = document.createElement("video");
    Object.defineProperty(fresh, "currentTime", { value: 0, writable: true });
    result.current.onLoadedMetadata(eventOn(fresh));
    expect(fresh.currentTime).toBe(42);
  });

  it("leaves public media alone", () => {
    const { result, invalidate } = setup();
    const audio = document.createElement("audio");
    audio.setAttribute("src", "/storage/v1/object/public/audio/greeting.m4a");
    result.current.onError(eventOn(audio));
    expect(invalidate).not.toHaveBeenCalled();
  });
});
