import { DEFAULT_PRIMARY_COLOR, type Language } from "@hikaya/contracts";

/** The stop link's small page, server-rendered so it works from any phone without the app or a session. */
const TEXTS = {
  en: {
    title: "Stop reminders",
    ask: "Turn off Hikaya story reminders?",
    button: "Turn off reminders",
    done: "Reminders are off. You will not get more story reminders. You can turn them on again in Edit Profile.",
    used: "This link was already used. Reminders are off.",
    invalid: "This link is not valid. You can turn reminders off in Edit Profile.",
    home: "Go to Hikaya",
  },
  ar: {
    title: "إيقاف التذكيرات",
    ask: "هل تريد إيقاف تذكيرات قصص حكاية؟",
    button: "إيقاف التذكيرات",
    done: "تم إيقاف التذكيرات، ولن تصلك تذكيرات أخرى بالقصص. يمكنك تشغيلها مجددًا من تعديل الملف الشخصي.",
    used: "سبق استخدام هذا الرابط، والتذكيرات متوقفة.",
    invalid: "هذا الرابط غير صالح. يمكنك إيقاف التذكيرات من تعديل الملف الشخصي.",
    home: "الذهاب إلى حكاية",
  },
} as const satisfies Record<Language, Record<string, string>>;

export type StopPageState = "ask" | "done" | "used" | "invalid";

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

/**
 * The app's look (apps/web/src/styles: its palette, font stack and card), written here because the page is sent
 * by the server alone. Styles only: the CSP allows inline styles, never inline scripts, and the page needs none.
 * Logical properties, so the Arabic page (dir="rtl") lays itself out from the right.
 */
const styles = (primary: string) =>
  [
    `:root{--primary:${primary};--primary-dark:color-mix(in srgb,var(--primary) 80%,black);--ink:#1d2a24;--ink-soft:#4f5d56;--line:#dfe5e1;--canvas:#f4f7f5;color-scheme:light}`,
    `*{box-sizing:border-box}`,
    `body{margin:0;min-height:100vh;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans Arabic","Noto Naskh Arabic",Tahoma,sans-serif;color:var(--ink);background:linear-gradient(180deg,color-mix(in srgb,var(--primary) 20%,var(--canvas)),var(--canvas) 40%);line-height:1.5;-webkit-text-size-adjust:100%}`,
    `main{max-width:28rem;margin:0 auto;padding:3rem 1rem}`,
    `.card{background:#fff;border-radius:20px;box-shadow:0 2px 10px rgb(16 40 28 / 8%);padding:1.5rem;text-align:start}`,
    `h1{margin:0 0 .75rem;font-size:1.5rem;color:var(--primary-dark)}`,
    `p{margin:0 0 1.25rem;color:var(--ink-soft)}`,
    `.button{display:block;width:100%;min-height:48px;padding:.75rem 1.25rem;border-radius:14px;border:0;font:inherit;font-weight:600;text-align:center;text-decoration:none;cursor:pointer}`,
    `.button--primary{background:var(--primary);color:#fff}`,
    `.button--primary:hover{background:var(--primary-dark)}`,
    `.button--home{margin-block-start:.75rem;background:#fff;color:var(--primary-dark);border:1px solid var(--line)}`,
    `.button:focus-visible{outline:3px solid var(--primary-dark);outline-offset:2px}`,
  ].join("");

/** A colour the console saved (#rrggbb); anything else falls back to the app's own, so nothing leaks into the CSS. */
const safeColour = (colour: string | undefined) => (colour && /^#[0-9a-fA-F]{6}$/.test(colour) ? colour : DEFAULT_PRIMARY_COLOR);

export function stopPage(language: Language, state: StopPageState, token = "", primaryColor?: string): string {
  const t = TEXTS[language];
  const main =
    state === "ask"
      ? `<p>${t.ask}</p><form method="post" action="/api/reminders/stop"><input type="hidden" name="token" value="${escapeHtml(token)}"><button class="button button--primary" type="submit">${t.button}</button></form>`
      : `<p role="status">${t[state]}</p>`;
  return `<!doctype html><html lang="${language}" dir="${language === "ar" ? "rtl" : "ltr"}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><meta name="theme-color" content="${safeColour(primaryColor)}"><title>${t.title}</title><style>${styles(safeColour(primaryColor))}</style></head><body><main><div class="card"><h1>${t.title}</h1>${main}<a class="button button--home" href="/">${t.home}</a></div></main></body></html>`;
}
