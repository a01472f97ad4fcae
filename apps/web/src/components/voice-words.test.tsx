// @vitest-environment jsdom
import { cleanup, render, screen } from "@testing-library/react";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { initI18n, setLanguage } from "../lib/i18n.ts";
import { VoiceWords } from "./voice-words.tsx";

beforeAll(async () => {
  await initI18n();
  await setLanguage("en");
});
afterEach(cleanup);
afterAll(async () => setLanguage("en"));

const both = { en: "Welcome, dear.", ar: "أهلًا يا عزيزي." };

describe("the words under a voice's player", () => {
  it("shows the person's language behind Read, marked with its language", async () => {
    render(<VoiceWords transcript={both} name="Aunt Amal" />);
    const summary = screen.getByText("Read");
    expect(summary.getAttribute("aria-label")).toBe("Read the words of Aunt Amal");
    const words = screen.getByText("Welcome, dear.");
    expect(words.getAttribute("lang")).toBe("en");
    expect(words.closest("details")?.open).toBe(false);
    expect(screen.queryByText("أهلًا يا عزيزي.")).toBeNull();
  });

  it("in Arabic says اقرأ and shows the Arabic words right to left", async () => {
    await setLanguage("ar");
    render(<VoiceWords transcript={both} name="العمة أمل" />);
    expect(screen.getByText("اقرأ")).toBeTruthy();
    const words = screen.getByText("أهلًا يا عزيزي.");
    expect(words.getAttribute("dir")).toBe("rtl");
    await setLanguage("en");
  });

  it("falls back to the other language's words, and shows nothing when there are none", () => {
    render(<VoiceWords transcript={{ en: null, ar: "أهلًا" }} name="Amal" className="audio-bar__words" />);
    const words = screen.getByText("أهلًا");
    expect(words.getAttribute("lang")).toBe("ar");
    expect(words.closest("details")?.className).toBe("voice-words audio-bar__words");
    cleanup();
    const { container } = render(<VoiceWords transcript={{ en: null, ar: null }} name="Amal" />);
    expect(container.innerHTML).toBe("");
  });
});
