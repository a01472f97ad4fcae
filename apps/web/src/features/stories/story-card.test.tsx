// @vitest-environment jsdom
import type { Story } from "@hikaya/contracts";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { initI18n, loadNamespaces } from "../../lib/i18n.ts";
import { StoryCard } from "./story-card.tsx";

beforeAll(async () => {
  await initI18n();
  await loadNamespaces("stories");
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const story = {
  id: "s1",
  order: 1,
  title: "One",
  subtitle: "",
  watchStatus: "notWatched",
  thumbnailUrl: "/storage/v1/object/public/thumbnails/s1?v=1",
} as unknown as Story;
const thumbnail = (container: HTMLElement) => container.querySelector("img") as HTMLImageElement;

describe("a story card's thumbnail", () => {
  it("loads at once and first on the card with priority (the home's largest paint), lazily on the others", () => {
    const first = thumbnail(render(<StoryCard story={story} priority />).container);
    expect(first.getAttribute("fetchpriority")).toBe("high");
    expect(first.getAttribute("loading")).toBeNull();
    cleanup();
    const other = thumbnail(render(<StoryCard story={story} />).container);
    expect(other.getAttribute("fetchpriority")).toBeNull();
    expect(other.getAttribute("loading")).toBe("lazy");
  });

  it("shows the placeholder for a story without a thumbnail, asking for no address", () => {
    const { container, getByTestId } = render(<StoryCard story={{ ...story, thumbnailUrl: null }} />);
    expect(container.querySelector("img")).toBeNull();
    expect(getByTestId("thumbnail-placeholder")).toBeTruthy();
  });

  it("shows the placeholder when the thumbnail's file does not load", () => {
    const { container, getByTestId } = render(<StoryCard story={story} />);
    fireEvent.error(thumbnail(container));
    expect(container.querySelector("img")).toBeNull();
    expect(getByTestId("thumbnail-placeholder")).toBeTruthy();
  });
});

describe("a story card's size (issue 38)", () => {
  const asked: string[] = [];
  const answer = (stream: unknown) =>
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string) => {
        asked.push(String(url));
        return new Response(JSON.stringify(stream), { status: 200, headers: { "content-type": "application/json" } });
      }),
    );
  const withQueries = (card: React.ReactNode) => <QueryClientProvider client={new QueryClient()}>{card}</QueryClientProvider>;
  const sizes = { best: 4_212_345, saveData: 912_000, audioOnly: 310_000 };

  it("shows what the story costs in the person's mode (a visitor's browser: best) once its video has a stream", async () => {
    asked.length = 0;
    answer({ hls: "/s/master.m3u8", poster: null, durationSeconds: 40, sizes });
    const url = "/storage/v1/object/sign/story-media/a.mp4?expires=1&signature=x";
    render(withQueries(<StoryCard story={{ ...story, id: "sized", watchStatus: "Active", url }} />));
    await waitFor(() => expect(screen.getByTestId("story-card-size").textContent).toBe("Size: 4.2 MB"));
    expect(asked).toEqual([`/api/media/stream?src=${encodeURIComponent(url)}`]);
  });

  it("shows none for a video not processed yet, nor for a locked story (it has no address)", async () => {
    answer({ hls: null, poster: null, durationSeconds: null, sizes: null });
    const url = "/storage/v1/object/sign/story-media/b.mp4?expires=1&signature=x";
    render(withQueries(<StoryCard story={{ ...story, id: "raw", watchStatus: "Active", url }} />));
    await waitFor(() => expect(asked).toContain(`/api/media/stream?src=${encodeURIComponent(url)}`));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(screen.queryByTestId("story-card-size")).toBeNull();
    cleanup();
    asked.length = 0;
    render(withQueries(<StoryCard story={{ ...story, id: "locked", watchStatus: "Locked" }} />));
    expect(screen.queryByTestId("story-card-size")).toBeNull();
    expect(asked).toEqual([]);
  });
});
