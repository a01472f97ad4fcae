// @vitest-environment jsdom
import type { AccountSettings } from "@hikaya/contracts";
import { notifyManager, QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { accountQuery, savePreferences } from "../../lib/account.ts";
import { api } from "../../lib/api-client.ts";
import { initI18n, loadNamespaces, setLanguage } from "../../lib/i18n.ts";
import { PUSH_ANSWER_MS } from "../../lib/push.ts";
import en from "../../locales/en/account.json";
import { AccountPreferences } from "./account-preferences.tsx";

const stored = { agreeToReminder: true, whatsappOptIn: null, viewingMode: "best" } as unknown as AccountSettings;

vi.mock("../../lib/account.ts", async (original) => ({
  ...(await original<typeof import("../../lib/account.ts")>()),
  savePreferences: vi.fn(async (change: object) => ({ ...stored, ...change })),
}));

// The push key comes from the server; the test answers it.
vi.mock("../../lib/api-client.ts", async (original) => ({
  ...(await original<typeof import("../../lib/api-client.ts")>()),
  api: vi.fn(),
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

describe("the viewing mode (issue 38)", () => {
  it("offers the three modes, shows the stored one, and saves a choice", async () => {
    render(
      <QueryClientProvider client={new QueryClient()}>
        <Screen />
      </QueryClientProvider>,
    );
    const best = screen.getByRole("radio", { name: "Best quality" }) as HTMLInputElement;
    const saving = screen.getByRole("radio", { name: "Save data (lowest quality)" }) as HTMLInputElement;
    const audio = screen.getByRole("radio", { name: "Audio only" }) as HTMLInputElement;
    expect([best.checked, saving.checked, audio.checked]).toEqual([true, false, false]);
    await act(async () => {
      fireEvent.click(audio);
    });
    expect(savePreferences).toHaveBeenCalledWith({ viewingMode: "audio_only" });
    await vi.waitFor(() => expect(audio.checked).toBe(true));
  });
});

describe("the notifications switch", () => {
  /** A browser with push whose push service never answers, or refuses to subscribe (Chromium without one). */
  function browserWithPush(pushManager: Partial<PushManager>) {
    vi.stubGlobal("PushManager", class {});
    vi.stubGlobal("Notification", { permission: "default", requestPermission: async () => "granted" });
    Object.defineProperty(navigator, "serviceWorker", {
      configurable: true,
      value: { getRegistration: async () => ({ pushManager }) },
    });
  }
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    Reflect.deleteProperty(navigator, "serviceWorker");
  });

  it("says the browser did not answer, and what to do, when its push service never replies", async () => {
    vi.useFakeTimers();
    browserWithPush({ getSubscription: () => new Promise<PushSubscription | null>(() => {}) });
    render(
      <QueryClientProvider client={new QueryClient()}>
        <Screen />
      </QueryClientProvider>,
    );
    const box = screen.getByRole("checkbox", { name: en.preferences.push }) as HTMLInputElement;
    expect(box.disabled).toBe(true);
    await act(() => vi.advanceTimersByTimeAsync(PUSH_ANSWER_MS));
    expect(screen.getByRole("status").textContent).toBe(en.preferences.pushUnanswered);
    // Left usable, so the person can try again once notifications are allowed.
    expect(box.disabled).toBe(false);
  });

  it("says so when the browser refuses to subscribe", async () => {
    browserWithPush({
      getSubscription: async () => null,
      subscribe: async () => {
        throw new DOMException("Registration failed - push service not available", "AbortError");
      },
    });
    vi.mocked(api).mockResolvedValueOnce({ publicKey: "AQAB" });
    render(
      <QueryClientProvider client={new QueryClient()}>
        <Screen />
      </QueryClientProvider>,
    );
    const box = (await screen.findByRole("checkbox", { name: en.preferences.push })) as HTMLInputElement;
    await vi.waitFor(() => expect(box.disabled).toBe(false));
    await act(async () => {
      fireEvent.click(box);
    });
    await vi.waitFor(() => expect(screen.getByRole("status").textContent).toBe(en.preferences.pushUnanswered));
    expect(box.checked).toBe(false);
  });
});
