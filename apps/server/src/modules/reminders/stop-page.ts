import type { Language } from "@hikaya/contracts";

/** The stop link's small page, server-rendered so it works from any phone without the app or a session. */
const TEXTS = {
  en: {
    title: "Stop reminders",
    ask: "Turn off Hikaya story reminders?",
    button: "Turn off reminders",
    done: "Reminders are off. You will not get more story reminders. You can turn them on again in Edit Profile.",
    used: "This link was already used. Reminders are off.",
    invalid: "This link is not valid. You can turn reminders off in Edit Profile.",
  },
  ar: {
    title: "إيقاف التذكيرات",
    ask: "هل تريد إيقاف تذكيرات قصص حكاية؟",
    button: "إيقاف التذكيرات",
    done: "تم إيقاف التذكيرات، ولن تصلك تذكيرات أخرى بالقصص. يمكنك تشغيلها مجددًا من تعديل الملف الشخصي.",
    used: "سبق استخدام هذا الرابط، والتذكيرات متوقفة.",
    invalid: "هذا الرابط غير صالح. يمكنك إيقاف التذكيرات من تعديل الملف الشخصي.",
  },
} as const satisfies Record<Language, Record<string, string>>;

export type StopPageState = "ask" | "done" | "used" | "invalid";

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

export function stopPage(language: Language, state: StopPageState, token = ""): string {
  const t = TEXTS[language];
  const main =
    state === "ask"
      ? `<p>${t.ask}</p><form method="post" action="/api/reminders/stop"><input type="hidden" name="token" value="${escapeHtml(token)}"><button type="submit">${t.button}</button></form>`
      : `<p role="status">${t[state]}</p>`;
  return `<!doctype html><html lang="${language}" dir="${language === "ar" ? "rtl" : "ltr"}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${t.title}</title><style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5}button{font:inherit;padding:.6rem 1.2rem;border-radius:.5rem;border:0;background:#7a3e9d;color:#fff}</style></head><body><h1>${t.title}</h1>${main}</body></html>`;
}
