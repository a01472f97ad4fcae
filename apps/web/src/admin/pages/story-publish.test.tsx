// @vitest-environment jsdom
import type { AdminStory, MediaJobState } from "@hikaya/contracts";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { initI18n, loadNamespaces, setLanguage } from "../../lib/i18n.ts";
import { mediaStatusQuery } from "../components/media-job-status.tsx";
import { PublishSection, publishGuardOf } from "./story-publish.tsx";

beforeAll(async () => {
  await initI18n();
  await loadNamespaces("admin");
  await setLanguage("en");
});
afterEach(cleanup);

const VIDEO = "/storage/v1/object/sign/story-media/v.mp4?expires=1&signature=s";
const story: AdminStory = {
  id: "s1",
  order: 3,
  titleEn: "The well",
  titleAr: "البئر",
  subtitleEn: "",
  subtitleAr: "",
  videoUrl: VIDEO,
  thumbnailUrl: null,
  videoUrlAr: null,
  thumbnailUrlAr: null,
  questionCount: 0,
  watchedCount: 0,
  updatedAt: "2026-11-28T10:00:00.000Z",
  version: 1,
  published: false,
};

/** The section with the video's processing state already known (no request leaves the test). */
function renderWith(state: MediaJobState | null) {
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Number.POSITIVE_INFINITY, retry: false } } });
  client.setQueryData(mediaStatusQuery(VIDEO).queryKey, state);
  render(
    <QueryClientProvider client={client}>
      <PublishSection story={story} />
    </QueryClientProvider>,
  );
}

describe("publishing a story whose video is being processed", () => {
  it("publishGuardOf: a failure blocks whatever else is processing; waiting or processing asks; ready or none does not", () => {
    const processing: MediaJobState = { status: "processing", progress: 20, failure: null };
    const failed: MediaJobState = { status: "failed", progress: 0, failure: "no_video_track" };
    expect(publishGuardOf([processing, failed])).toEqual({ failed: "no_video_track" });
    expect(publishGuardOf([{ status: "waiting", progress: 0, failure: null }, null])).toBe("processing");
    expect(publishGuardOf([{ status: "ready", progress: 100, failure: null }, null, undefined])).toBeNull();
  });

  it("a failed video: the section says it cannot be published, with the reason", () => {
    renderWith({ status: "failed", progress: 0, failure: "no_video_track" });
    expect(screen.getByTestId("publish-blocked").textContent).toBe(
      "Cannot be published This story's video could not be processed, so it cannot be published: this file has sound but no picture.",
    );
  });

  it("a video still processing: the confirmation says families get the original meanwhile", () => {
    renderWith({ status: "processing", progress: 40, failure: null });
    expect(screen.queryByTestId("publish-blocked")).toBeNull();
    expect(screen.getByTestId("publish-processing").textContent).toBe(
      "Its video is still being processed. Families will get the original video meanwhile.",
    );
  });

  it("a processed video: the confirmation does not mention processing", () => {
    renderWith({ status: "ready", progress: 100, failure: null });
    expect(screen.queryByTestId("publish-processing")).toBeNull();
    expect(screen.queryByTestId("publish-blocked")).toBeNull();
  });
});
