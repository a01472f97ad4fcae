// @vitest-environment jsdom
import type { AccountSettings } from "@hikaya/contracts";
import { notifyManager, QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { accountQuery } from "../../lib/account.ts";
import { initI18n, loadNamespaces, setLanguage } from "../../lib/i18n.ts";
import en from "../../locales/en/account.json";
import { AccountPreferences } from "./account-preferences.tsx";

const stored = { agreeToReminder: true, whatsappOptIn: null } as unknown as AccountSettings;

vi.mock("../../lib/account.ts", async (original) => ({
  ...(await original<typeof import("../../lib/account.ts")>()),
  savePreferences: vi.fn(async (change: object) => ({ ...stored, ...change })),
}));

beforeAll(async () => {
  await initI18n();
  await loadNamespaces("account");
  await setLanguage("en");
});
afterEach(() => {
  cleanup();
  notifyManager.setScheduler((callback) => setTimeout(callback, 0));
});

function Screen() {
  const { data } = useQuery({ ...accountQuery, enabled: false, initialData: stored });
  return <AccountPreferences settings={data} />;
}

describe("the reminders box", () => {
  it("stays where the tap put it while the saved answer reaches the screen", async () => {
    // TanStack Query tells its subscribers when this test says so, as a timer would a moment later.
    const heard: (() => void)[] = [];
    notifyManager.setScheduler((callback) => heard.push(callback));
    render(
      <QueryClientProvider client={new QueryClient()}>
        <Screen />
      </QueryClientProvider>,
    );
    const box = screen.getByRole("checkbox", { name: en.register.reminders }) as HTMLInputElement;
    expect(box.checked).toBe(true);
    fireEvent.click(box);
    // The save answers; the query's subscribers have not heard yet.
    await act(async () => {});
    expect(box.checked).toBe(false);
    act(() => {
      for (const callback of heard.splice(0)) callback();
    });
    expect(box.checked).toBe(false);
    expect(box.disabled).toBe(false);
  });
});
