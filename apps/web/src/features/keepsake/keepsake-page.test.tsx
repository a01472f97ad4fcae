// @vitest-environment jsdom
import type { Keepsake, KeepsakeVoice } from "@hikaya/contracts";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { initI18n, loadNamespaces, setLanguage } from "../../lib/i18n.ts";
import ar from "../../locales/ar/keepsake.json";
import en from "../../locales/en/keepsake.json";
import { downloadKeepsake } from "./api/keepsake.ts";
import { KeepsakePage } from "./keepsake-page.tsx";

const voice = (id: string, durationSeconds: number | null): KeepsakeVoice => ({
  kind: "recording",
  id,
  questionIndex: null,
  speakerNameEn: "",
  speakerNameAr: "",
  ownVoice: true,
  recordedAt: "2026-01-02T10:00:00.000Z",
  durationSeconds,
  included: true,
  missing: false,
  audioUrl: `/api/recordings/${id}/audio`,
  link: null,
  words: null,
  wordsVersion: 0,
});
const keepsake: Keepsake = {
  title: "Our stories",
  dedication: "",
  familyName: "The Haddads",
  hasRecordings: true,
  stories: [
    {
      id: "s1",
      position: 1,
      titleEn: "The Olive Tree",
      titleAr: "شجرة الزيتون",
      thumbnailUrl: null,
      questionCount: 0,
      voices: [voice("r1", 84), voice("r2", null)],
    },
  ],
  links: [],
  family: { questions: [], replies: [] },
};

vi.mock("../../components/require-user.ts", () => ({ useRequireUser: () => true }));
vi.mock("../../components/title-bar.tsx", () => ({ TitleBar: () => null }));
let shown: Keepsake = keepsake;
const saveWords = vi.hoisted(() => vi.fn());
vi.mock("./api/keepsake.ts", () => {
  const idle = { mutate: vi.fn(), mutateAsync: vi.fn(), isPending: false };
  return {
    useKeepsake: () => ({ data: shown, isError: false, error: null }),
    useSaveKeepsake: () => idle,
    useShareKeepsake: () => idle,
    useRevokeLink: () => idle,
    useSaveRecordingWords: () => ({ ...idle, mutate: saveWords }),
    downloadKeepsake: vi.fn(async () => undefined),
  };
});

beforeAll(async () => {
  await initI18n();
  await loadNamespaces("keepsake");
  await setLanguage("en");
});
afterEach(() => {
  cleanup();
  shown = keepsake;
});
const renderPage = () =>
  render(
    <QueryClientProvider client={new QueryClient()}>
      <KeepsakePage />
    </QueryClientProvider>,
  );

describe("the family's list of recordings", () => {
  it("shows each recording's length as the book prints it, and none where it is not known", () => {
    renderPage();
    const lengths = [...document.querySelectorAll(".keepsake-choice__length")].map((e) => e.textContent);
    expect(lengths).toEqual([en.voices.length.replace("{{length}}", "1:24")]);
    expect(screen.getAllByRole("checkbox")).toHaveLength(2);
  });

  it("writes lengths in the book's digits: Arabic-Indic in Arabic", async () => {
    await setLanguage("ar");
    try {
      renderPage();
      const lengths = [...document.querySelectorAll(".keepsake-choice__length")].map((e) => e.textContent);
      expect(lengths).toEqual([ar.voices.length.replace("{{length}}", "١:٢٤")]);
      // The printed line separates date and length with the Arabic comma: a middle dot would read as a zero (٠).
      const meta = document.querySelector(".keepsake-voice__meta")?.textContent ?? "";
      expect(meta).toContain(`، ${ar.book.length.replace("{{length}}", "١:٢٤")}`);
      expect(meta).not.toContain("·");
    } finally {
      await setLanguage("en");
    }
  });
});

describe("download everything", () => {
  it("asks the server for the ZIP in the app's language", async () => {
    renderPage();
    fireEvent.click(screen.getByRole("button", { name: en.download.button }));
    await vi.waitFor(() => expect(downloadKeepsake).toHaveBeenCalledWith("en"));
  });
});

describe("the book's pages", () => {
  it("gives a page only to the stories with chosen voices, numbered as the pages run", () => {
    const story = keepsake.stories[0];
    if (!story) throw new Error("no story");
    const empty = { ...story, id: "s0", titleEn: "Nothing chosen", voices: [{ ...voice("r9", 5), included: false }] };
    const third = { ...story, id: "s3", titleEn: "The third story" };
    shown = { ...keepsake, stories: [empty, story, third] };
    renderPage();
    const book = screen.getByRole("article", { name: en.book.label });
    const pages = [...book.querySelectorAll(".keepsake-story")];
    expect(pages.map((p) => p.querySelector(".keepsake-story__title")?.textContent)).toEqual([story.titleEn, "The third story"]);
    expect(pages.map((p) => p.querySelector(".keepsake-story__number")?.textContent)).toEqual(["Story 1", "Story 2"]);
    expect(within(book).queryByText("Nothing chosen")).toBeNull();
  });
});

describe("a recording whose file is missing", () => {
  it("is left out of the book, which says so", () => {
    const [present, gone] = [voice("r1", 84), { ...voice("r2", 12), missing: true }];
    const story = keepsake.stories[0];
    if (!story) throw new Error("no story");
    shown = { ...keepsake, stories: [{ ...story, voices: [present, gone] }] };
    renderPage();
    const book = screen.getByRole("article", { name: en.book.label });
    expect(book.querySelectorAll(".keepsake-voice")).toHaveLength(1);
    expect(within(book).getByRole("note").textContent).toBe(en.book.missing.replace("{{speaker}}", "The Haddads"));
    // The family's list says it too, and offers no player for it.
    expect(screen.getByText(en.voices.missing)).toBeTruthy();
    expect(document.querySelectorAll(".keepsake-choice audio")).toHaveLength(1);
  });
});

describe("a keepsake with nothing recorded", () => {
  it("explains what to record first", () => {
    shown = { ...keepsake, hasRecordings: false, stories: [] };
    renderPage();
    expect(screen.getByRole("heading", { name: en.empty.title })).toBeTruthy();
    expect(screen.getByText(en.empty.body)).toBeTruthy();
    expect(screen.queryByRole("article", { name: en.book.label })).toBeNull();
  });
});

describe("the words of each voice (issue 39)", () => {
  const withWords = () => {
    const story = keepsake.stories[0];
    if (!story) throw new Error("no story");
    const answer: KeepsakeVoice = {
      ...voice("a1", 30),
      kind: "answer",
      ownVoice: false,
      speakerNameEn: "Grandma Salma",
      speakerNameAr: "الجدة سلمى",
      words: { text: "زرعناها معًا.", language: "ar" },
    };
    const own: KeepsakeVoice = { ...voice("r1", 84), words: { text: "Our old house.", language: null }, wordsVersion: 3 };
    shown = { ...keepsake, stories: [{ ...story, voices: [answer, own] }] };
  };

  it("the book prints them under the voice, marked with their language when known", () => {
    withWords();
    renderPage();
    const book = screen.getByRole("article", { name: en.book.label });
    const answer = within(book).getByText("زرعناها معًا.");
    expect(answer.getAttribute("lang")).toBe("ar");
    expect(answer.getAttribute("dir")).toBe("rtl");
    const own = within(book).getByText("Our old house.");
    expect(own.getAttribute("lang")).toBeNull();
    expect(own.getAttribute("dir")).toBe("auto");
  });

  it("the storyteller edits only their own recordings' words, saved with the version they saw", () => {
    withWords();
    renderPage();
    const boxes = screen.getAllByRole("textbox").filter((b) => b.tagName === "TEXTAREA" && b.closest(".keepsake-words"));
    expect(boxes).toHaveLength(1);
    const box = boxes[0] as HTMLTextAreaElement;
    expect(box.value).toBe("Our old house.");
    fireEvent.change(box, { target: { value: "Our old house, by the sea." } });
    const label = box.labels?.[0]?.textContent ?? "";
    expect(label.startsWith(en.words.label.split("{{")[0] ?? "-")).toBe(true);
    fireEvent.click(screen.getByRole("button", { name: new RegExp(`^${en.words.save.split("{{")[0]}`) }));
    expect(saveWords).toHaveBeenCalledWith(
      { id: "r1", transcript: "Our old house, by the sea.", version: 3 },
      expect.any(Object),
    );
  });
});
