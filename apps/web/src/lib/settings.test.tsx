// @vitest-environment jsdom
import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { useInstruction } from "./instructions.ts";
import { refreshSettings, useSettings } from "./settings.ts";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

function Title() {
  const { data, isPending } = useSettings();
  return <h1>{isPending ? "pending" : (data?.title.en ?? "default")}</h1>;
}

function Video({ at }: { at: "Landing Page" | "Message Center" }) {
  return <p>{useInstruction(at) ?? "none"}</p>;
}

describe("the public settings without TanStack Query", () => {
  it("starts from the auth client's request, then follows the console's save and keeps the last answer offline", async () => {
    let title = "First";
    const fetchMock = vi.fn(async () => json({ title: { en: title, ar: "أ" }, primaryColor: "#000", anonKey: "k" }));
    vi.stubGlobal("fetch", fetchMock);
    render(<Title />);
    expect(screen.getByRole("heading").textContent).toBe("pending");
    expect(await screen.findByText("First")).toBeTruthy();
    expect(fetchMock).toHaveBeenCalledTimes(1);

    title = "Saved from the console";
    await act(() => refreshSettings());
    expect(screen.getByRole("heading").textContent).toBe("Saved from the console");

    vi.stubGlobal("navigator", { ...navigator, onLine: false });
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => {
        throw new TypeError("offline");
      }),
    );
    await act(() => refreshSettings());
    expect(screen.getByRole("heading").textContent).toBe("Saved from the console");
  });
});

describe("instruction videos", () => {
  it("share one request per location and reuse the answer", async () => {
    const fetchMock = vi.fn(async (url: string) => json({ media: url.includes("Landing") ? "/storage/landing.mp4" : null }));
    vi.stubGlobal("fetch", fetchMock);
    render(
      <>
        <Video at="Landing Page" />
        <Video at="Landing Page" />
        <Video at="Message Center" />
      </>,
    );
    expect((await screen.findAllByText("/storage/landing.mp4")).length).toBe(2);
    expect(screen.getByText("none")).toBeTruthy();
    expect(fetchMock).toHaveBeenCalledTimes(2);
    cleanup();
    render(<Video at="Landing Page" />);
    expect(screen.getByText("/storage/landing.mp4")).toBeTruthy();
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });
});
