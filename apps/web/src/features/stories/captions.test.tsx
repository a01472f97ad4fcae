// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { useRef } from "react";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { initI18n, loadNamespaces, setLanguage } from "../../lib/i18n.ts";
import { CaptionSwitch, CaptionTracks, defaultCaption, showCaption, useCaptions } from "./captions.tsx";

beforeAll(async () => {
  await initI18n();
  await loadNamespaces("stories");
});
afterEach(cleanup);

const both = [
  { lang: "en" as const, url: "/s/en.vtt?v=1" },
  { lang: "ar" as const, url: "/s/ar.vtt?v=1" },
];

/** The story player's use of the three pieces, without the stream and hls.js around them. */
function Player({ captions }: { captions: typeof both }) {
  const video = useRef<HTMLVideoElement>(null);
  const { choice, setChoice } = useCaptions(video, captions);
  return (
    <>
      <video ref={video} data-captions={choice}>
        <CaptionTracks captions={captions} choice={choice} />
      </video>
      <CaptionSwitch captions={captions} choice={choice} onChoose={setChoice} />
    </>
  );
}

describe("a story video's captions", () => {
  it("start in the person's language when the video has it, else off", () => {
    expect(defaultCaption(both, "ar")).toBe("ar");
    expect(defaultCaption([both[0] as (typeof both)[0]], "ar")).toBe("off");
    expect(defaultCaption([], "en")).toBe("off");
  });

  it("show the chosen track only, leaving other kinds of track alone", () => {
    const tracks = [
      { kind: "captions", language: "en", mode: "showing" },
      { kind: "captions", language: "ar", mode: "disabled" },
      { kind: "metadata", language: "", mode: "hidden" },
    ] as TextTrack[];
    showCaption(tracks, "ar");
    expect(tracks.map((t) => t.mode)).toEqual(["disabled", "showing", "hidden"]);
    showCaption(tracks, "off");
    expect(tracks.map((t) => t.mode)).toEqual(["disabled", "disabled", "hidden"]);
  });

  it("an Arabic reader gets the Arabic track by default, with its language on it, and can switch to English or off", async () => {
    await setLanguage("ar");
    const { container } = render(<Player captions={both} />);
    const tracks = Array.from(container.querySelectorAll("track"));
    expect(tracks.map((t) => [t.getAttribute("kind"), t.getAttribute("srclang"), t.getAttribute("lang"), t.default])).toEqual([
      ["captions", "en", "en", false],
      ["captions", "ar", "ar", true],
    ]);
    const video = container.querySelector("video") as HTMLVideoElement;
    expect(video.dataset.captions).toBe("ar");
    expect(screen.getByRole("group", { name: "الترجمة النصية" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "العربية" }).getAttribute("aria-pressed")).toBe("true");
    fireEvent.click(screen.getByRole("button", { name: "الإنجليزية" }));
    expect(video.dataset.captions).toBe("en");
    fireEvent.click(screen.getByRole("button", { name: "إيقاف" }));
    expect(video.dataset.captions).toBe("off");
    expect(screen.getByRole("button", { name: "إيقاف" }).getAttribute("aria-pressed")).toBe("true");
  });

  it("no switch for a video without captions", async () => {
    await setLanguage("en");
    render(<Player captions={[]} />);
    expect(screen.queryByRole("group")).toBeNull();
  });
});
