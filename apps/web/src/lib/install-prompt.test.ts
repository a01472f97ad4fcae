// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

type Pwa = typeof import("./install-prompt.ts");

/** A fresh module each test: the held prompt and "installed" are module state, as in one page visit. */
async function load(): Promise<Pwa> {
  vi.resetModules();
  return import("./install-prompt.ts");
}

function offerPrompt(outcome: "accepted" | "dismissed") {
  const event = Object.assign(new Event("beforeinstallprompt", { cancelable: true }), {
    prompt: vi.fn(async () => {}),
    userChoice: Promise.resolve({ outcome }),
  });
  window.dispatchEvent(event);
  return event;
}

let standalone = false;
beforeEach(() => {
  standalone = false;
  window.matchMedia = ((query: string) => ({ matches: standalone && query === "(display-mode: standalone)" })) as never;
});
afterEach(() => vi.restoreAllMocks());

describe("Add to Home Screen", () => {
  it("says the app is already added on a second tap after the prompt was accepted", async () => {
    const pwa = await load();
    const event = offerPrompt("accepted");
    expect(await pwa.promptInstall()).toBe("accepted");
    expect(event.prompt).toHaveBeenCalledOnce();
    expect(await pwa.promptInstall()).toBe("installed");
  });

  it("says the app is already added when it runs from the home screen", async () => {
    const pwa = await load();
    standalone = true;
    offerPrompt("accepted");
    expect(await pwa.promptInstall()).toBe("installed");
  });

  it("asks for the steps when the browser has no prompt, or the one it gave was dismissed", async () => {
    const pwa = await load();
    expect(await pwa.promptInstall()).toBe("manual");
    offerPrompt("dismissed");
    expect(await pwa.promptInstall()).toBe("dismissed");
    expect(await pwa.promptInstall()).toBe("manual");
  });

  it("says the app is already added after the browser reports it installed", async () => {
    const pwa = await load();
    window.dispatchEvent(new Event("appinstalled"));
    expect(await pwa.promptInstall()).toBe("installed");
  });
});
