// @vitest-environment jsdom
import type { Story } from "@hikaya/contracts";
import { cleanup, fireEvent, render } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { initI18n, loadNamespaces } from "../../lib/i18n.ts";
import { StoryCard } from "./story-card.tsx";

beforeAll(async () => {
  await initI18n();
  await loadNamespaces("stories");
});
afterEach(cleanup);

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
