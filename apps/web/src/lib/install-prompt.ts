/**
 * The browser's install prompt, held from page load until the person taps "Add to Home Screen" (pwa.ts imports
 * this module at start, so the event is never missed). Apart from pwa.ts, which imports vite-plugin-pwa's
 * virtual module, so it can be tested alone.
 */
interface BeforeInstallPromptEvent extends Event {
  prompt(): Promise<void>;
  userChoice: Promise<{ outcome: "accepted" | "dismissed" }>;
}

let heldPrompt: BeforeInstallPromptEvent | null = null;
/** The person accepted the prompt (or the browser said the app was installed) during this visit. */
let installedHere = false;

if (typeof window !== "undefined") {
  window.addEventListener("beforeinstallprompt", (event) => {
    event.preventDefault();
    heldPrompt = event as BeforeInstallPromptEvent;
  });
  window.addEventListener("appinstalled", () => {
    heldPrompt = null;
    installedHere = true;
  });
}

/** Running as the installed app: opened from the home screen (iOS Safari says so with navigator.standalone). */
function runningInstalled(): boolean {
  const standalone = (navigator as Navigator & { standalone?: boolean }).standalone === true;
  return standalone || (typeof window.matchMedia === "function" && window.matchMedia("(display-mode: standalone)").matches);
}

export function canPromptInstall(): boolean {
  return heldPrompt !== null;
}

/**
 * Shows the held install prompt. "installed" when the app already is (opened from the home screen, or accepted
 * earlier in this visit: a second tap must not say the device cannot do it); "manual" when the browser offers no
 * prompt (iOS, or a prompt already used, which a browser never gives twice), so the caller shows the steps.
 */
export async function promptInstall(): Promise<"accepted" | "dismissed" | "installed" | "manual"> {
  if (installedHere || runningInstalled()) return "installed";
  const event = heldPrompt;
  if (!event) return "manual";
  heldPrompt = null; // a prompt can be shown only once
  await event.prompt();
  const choice = await event.userChoice;
  if (choice.outcome === "accepted") installedHere = true;
  return choice.outcome;
}
