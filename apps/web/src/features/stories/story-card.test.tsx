// @vitest-environment jsdom
import type { Story } from "@hikaya/contracts";
import { cleanup, render } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { initI18n, loadNamespaces } from "../../lib/i18n.ts";
import { StoryCard } from "./story-card.tsx";

beforeAll(async () => {
  await initI18n();
  await loadNamespaces("stories");
});
afterEach(cleanup);

const story = { id: "s1", order: 1, title: "One", subtitle: "", watchStatus: "notWatched" } as unknown as Story;
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
});
