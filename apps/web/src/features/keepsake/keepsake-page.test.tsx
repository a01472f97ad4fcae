// @vitest-environment jsdom
import type { Keepsake, KeepsakeVoice } from "@hikaya/contracts";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { initI18n, loadNamespaces, setLanguage } from "../../lib/i18n.ts";
import en from "../../locales/en/keepsake.json";
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
};

vi.mock("../../components/require-user.ts", () => ({ useRequireUser: () => true }));
vi.mock("../../components/title-bar.tsx", () => ({ TitleBar: () => null }));
vi.mock("./api/keepsake.ts", () => {
  const idle = { mutate: vi.fn(), mutateAsync: vi.fn(), isPending: false };
  return {
    useKeepsake: () => ({ data: keepsake, isError: false, error: null }),
    useSaveKeepsake: () => idle,
    useShareKeepsake: () => idle,
    useRevokeLink: () => idle,
  };
});

beforeAll(async () => {
  await initI18n();
  await loadNamespaces("keepsake");
  await setLanguage("en");
});
afterEach(cleanup);

describe("the family's list of recordings", () => {
  it("shows each recording's length as mm:ss, and none where it is not known", () => {
    render(
      <QueryClientProvider client={new QueryClient()}>
        <KeepsakePage />
      </QueryClientProvider>,
    );
    const lengths = [...document.querySelectorAll(".keepsake-choice__length")].map((e) => e.textContent);
    expect(lengths).toEqual([en.voices.length.replace("{{length}}", "01:24")]);
    expect(screen.getAllByRole("checkbox")).toHaveLength(2);
  });
});
