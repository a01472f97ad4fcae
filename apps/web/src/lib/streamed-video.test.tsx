// @vitest-environment jsdom
import { cleanup, render, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HLS_TYPE } from "./stream-source.ts";
import { StreamedVideo } from "./streamed-video.tsx";

// The question, instruction and landing videos play the HLS version the server lists, as the story player does
// (issue 29); a video it has no version of, or an unanswered question, plays the file itself.

const asked: string[] = [];
function answer(body: unknown, status = 200) {
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string) => {
      asked.push(String(url));
      return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
    }),
  );
}

beforeEach(() => {
  asked.length = 0;
  // As Safari does: the element plays HLS itself, so no hls.js is loaded in the test.
  vi.spyOn(HTMLMediaElement.prototype, "canPlayType").mockImplementation((type) => (type === HLS_TYPE ? "maybe" : ""));
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const stream = (hls: string | null) => ({ hls, poster: hls ? "/p.jpg" : null, durationSeconds: hls ? 6 : null });

describe("a stored video outside the story player", () => {
  it("plays the HLS version once the server lists one, with its poster, and says when it is attached", async () => {
    answer(stream("/storage/v1/object/public/instructions/a.mp4.media/hls/master.m3u8"));
    const attached = vi.fn();
    const { container } = render(<StreamedVideo src="/storage/v1/object/public/instructions/a.mp4" onAttached={attached} />);
    const video = container.querySelector("video") as HTMLVideoElement;
    await waitFor(() => expect(attached).toHaveBeenCalledWith(video));
    expect(video.getAttribute("src")).toBe("/storage/v1/object/public/instructions/a.mp4.media/hls/master.m3u8");
    expect(video.getAttribute("poster")).toBe("/p.jpg");
    expect(asked).toEqual([`/api/media/stream?src=${encodeURIComponent("/storage/v1/object/public/instructions/a.mp4")}`]);
  });

  it("plays the file itself when there is no version yet, or the server does not answer", async () => {
    answer(stream(null));
    const first = render(<StreamedVideo src="/storage/v1/object/public/instructions/b.mp4" />).container;
    await waitFor(() =>
      expect(first.querySelector("video")?.getAttribute("src")).toBe("/storage/v1/object/public/instructions/b.mp4"),
    );
    cleanup();
    answer({ code: "internal_error", message: "down" }, 500);
    const second = render(<StreamedVideo src="/storage/v1/object/public/instructions/c.mp4" />).container;
    await waitFor(() =>
      expect(second.querySelector("video")?.getAttribute("src")).toBe("/storage/v1/object/public/instructions/c.mp4"),
    );
  });
});
