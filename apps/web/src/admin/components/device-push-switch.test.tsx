// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { api } from "../../lib/api-client.ts";
import { initI18n, loadNamespaces, setLanguage } from "../../lib/i18n.ts";
import ar from "../../locales/ar/admin.json";
import en from "../../locales/en/admin.json";
import { consoleApi } from "../api.ts";
import { DevicePushSwitch } from "./device-push-switch.tsx";

// The push key comes from the server (public); the subscription goes through the console's own session.
vi.mock("../../lib/api-client.ts", async (original) => ({
  ...(await original<typeof import("../../lib/api-client.ts")>()),
  api: vi.fn(async () => ({ publicKey: "AQAB" })),
}));
vi.mock("../api.ts", () => ({ consoleApi: vi.fn(async () => ({ ok: true })) }));

const ENDPOINT = "https://push.example.com/p/console";
const keys = { p256dh: "console-key", auth: "console-auth" };

/** A browser with push: its one subscription (made on `subscribe`) shared by whoever signs in. */
function browserWithPush() {
  let subscription: PushSubscription | null = null;
  const made = {
    endpoint: ENDPOINT,
    toJSON: () => ({ endpoint: ENDPOINT, keys }),
    unsubscribe: vi.fn(async () => {
      subscription = null;
      return true;
    }),
  } as unknown as PushSubscription;
  const pushManager = {
    getSubscription: async () => subscription,
    subscribe: async () => {
      subscription = made;
      return made;
    },
  };
  vi.stubGlobal("PushManager", class {});
  vi.stubGlobal("Notification", { permission: "default", requestPermission: async () => "granted" });
  Object.defineProperty(navigator, "serviceWorker", {
    configurable: true,
    value: { getRegistration: async () => ({ pushManager }) },
  });
  return made;
}

beforeAll(async () => {
  await initI18n();
  await loadNamespaces("admin");
});
beforeEach(async () => {
  await setLanguage("en");
  localStorage.clear();
  vi.mocked(consoleApi).mockClear();
  vi.mocked(api).mockClear();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  Reflect.deleteProperty(navigator, "serviceWorker");
});

const box = async (label = en.devicePush.label) => {
  const found = (await screen.findByRole("checkbox", { name: label })) as HTMLInputElement;
  await vi.waitFor(() => expect(found.disabled).toBe(false));
  return found;
};

describe("Notify me on this device", () => {
  it("subscribes this browser as the operator's, in the console's language, and again when the language changes", async () => {
    browserWithPush();
    render(<DevicePushSwitch me="operator-1" />);
    const on = await box();
    expect(on.checked).toBe(false);
    await act(async () => {
      fireEvent.click(on);
    });
    await vi.waitFor(() => expect(on.checked).toBe(true));
    expect(consoleApi).toHaveBeenCalledWith("/admin/push/subscription", { body: { endpoint: ENDPOINT, keys, language: "en" } });
    // Not the family's route: the console's browser is an operator's.
    expect(vi.mocked(api).mock.calls.map(([path]) => path)).toEqual(["/push/key"]);

    await act(async () => {
      await setLanguage("ar");
    });
    const arabic = await box(ar.devicePush.label);
    await vi.waitFor(() =>
      expect(consoleApi).toHaveBeenLastCalledWith("/admin/push/subscription", {
        body: { endpoint: ENDPOINT, keys, language: "ar" },
      }),
    );
    expect(arabic.checked).toBe(true);
  });

  it("reads off for another operator on the same browser, and turning off forgets the subscription", async () => {
    const made = browserWithPush();
    const first = render(<DevicePushSwitch me="operator-1" />);
    const turnedOn = await box();
    await act(async () => {
      fireEvent.click(turnedOn);
    });
    await vi.waitFor(() => expect(turnedOn.checked).toBe(true));
    first.unmount();

    render(<DevicePushSwitch me="operator-2" />);
    expect((await box()).checked).toBe(false);
    cleanup();

    render(<DevicePushSwitch me="operator-1" />);
    const on = await box();
    await vi.waitFor(() => expect(on.checked).toBe(true));
    await act(async () => {
      fireEvent.click(on);
    });
    await vi.waitFor(() => expect(on.checked).toBe(false));
    expect(consoleApi).toHaveBeenLastCalledWith("/admin/push/unsubscribe", { body: { endpoint: ENDPOINT } });
    expect(made.unsubscribe).toHaveBeenCalled();
  });

  it("offers nothing where the browser has no push, and says why the box is off when notifications are blocked", async () => {
    const bare = render(<DevicePushSwitch me="operator-1" />);
    await vi.waitFor(() => expect(bare.container.innerHTML).toBe(""));
    bare.unmount();

    browserWithPush();
    vi.stubGlobal("Notification", { permission: "denied", requestPermission: async () => "denied" });
    render(<DevicePushSwitch me="operator-1" />);
    const blocked = (await screen.findByRole("checkbox", { name: en.devicePush.label })) as HTMLInputElement;
    await vi.waitFor(() => expect(blocked).toHaveProperty("disabled", true));
    expect(await screen.findByText(en.devicePush.denied)).toBeTruthy();
    expect(blocked.getAttribute("aria-describedby")?.split(" ")).toHaveLength(2);
  });
});
