// @vitest-environment jsdom
import { QueryClient } from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startEarlyRequests } from "../../../app/early-requests.ts";
import { AUTH_STORAGE_KEY } from "../../../lib/session.ts";
import { storiesQuery } from "./stories.ts";
import { EARLY_LIST_MAX_AGE_MS, startStoriesList } from "./stories-list.ts";

// Stories carry their own thumbnail address (a story without one shows a placeholder and preloads nothing).
const story = (id: string, order: number) => ({
  id,
  order,
  title: id,
  subtitle: "",
  watchStatus: "notWatched",
  thumbnailUrl: `/storage/v1/object/public/thumbnails/${id}`,
});

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  fetchMock = vi.fn(async () => new Response(JSON.stringify([story("b", 2), story("a", 1)]), { status: 200 }));
  vi.stubGlobal("fetch", fetchMock);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
  localStorage.clear();
  document.head.replaceChildren();
});

const paths = () => fetchMock.mock.calls.map(([path]) => String(path));
const list = (language: "en" | "ar") => new QueryClient().fetchQuery(storiesQuery(language));

describe("the story list asked for by the entry", () => {
  it("is what the query shows, without a second request, once, and its first thumbnail is on its way", async () => {
    startStoriesList("ar");
    await vi.waitFor(() => expect(paths()).toEqual(["/api/stories?lang=ar"]));
    expect((await list("ar")).map((s) => s.id)).toEqual(["a", "b"]);
    expect(paths()).toHaveLength(1);
    // The first card's thumbnail was asked for as soon as the list came, before any card rendered.
    const preloads = [...document.head.querySelectorAll<HTMLLinkElement>('link[rel="preload"][as="image"]')];
    expect(preloads.map((link) => link.getAttribute("href"))).toEqual(["/storage/v1/object/public/thumbnails/a"]);
    // Taken once: the next fetch of the list is a request of its own.
    await list("ar");
    expect(paths()).toEqual(["/api/stories?lang=ar", "/api/stories?lang=ar"]);
  });

  it("is not handed to another language's list, nor once older than the query's staleTime", async () => {
    startStoriesList("en");
    await list("ar");
    expect(paths()).toEqual(["/api/stories?lang=en", "/api/stories?lang=ar"]);

    vi.useFakeTimers({ toFake: ["Date"] });
    startStoriesList("ar");
    vi.setSystemTime(Date.now() + EARLY_LIST_MAX_AGE_MS + 1);
    await list("ar");
    expect(paths()).toHaveLength(4);
  });

  it("starts on the home of a person with a session only", async () => {
    startEarlyRequests("/");
    startEarlyRequests("/login");
    expect(fetchMock).not.toHaveBeenCalled();

    const expiresAt = Math.floor(Date.now() / 1000) + 3600;
    const session = { access_token: "access-1", refresh_token: "refresh-1", expires_at: expiresAt, user: { id: "u1" } };
    localStorage.setItem(AUTH_STORAGE_KEY, JSON.stringify(session));
    startEarlyRequests("/story/1");
    expect(fetchMock).not.toHaveBeenCalled();
    startEarlyRequests("/");
    await vi.waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    const [path, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(path).toMatch(/^\/api\/stories\?lang=(en|ar)$/);
    // Signed like any call of the API client (the session's token, refreshed first when it had expired).
    expect((init.headers as Record<string, string>).authorization).toBe("Bearer access-1");

    // The spec's own storage (a token without a refreshable session) is signed in too.
    localStorage.clear();
    localStorage.setItem("token", "access-2");
    startEarlyRequests("/");
    await vi.waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(2));
    expect(((fetchMock.mock.calls[1] as [string, RequestInit])[1].headers as Record<string, string>).authorization).toBe(
      "Bearer access-2",
    );
  });
});
