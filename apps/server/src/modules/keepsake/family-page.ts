import { FAMILY_NAME_MAX, FAMILY_TEXT_MAX, type Language } from "@hikaya/contracts";
import { escapeHtml } from "./html.ts";

/**
 * What a relative writes with on a listening page: a "Reply" form under each voice and an "Ask a question" form for
 * the book. The forms post without script (method="post", then a thank-you page); the recorder needs the script
 * `/k/family-reply.js` (family-script.ts), which shows the hold-to-record button only where it can record.
 */
export const FAMILY_TEXTS = {
  en: {
    reply: "Reply",
    ask: "Ask a question",
    askIntro: "Is there something you would like to know? Ask, and the family may answer with their voice.",
    name: "Your name",
    message: "Your message",
    question: "Your question",
    phone: "Your phone number with its country code (optional)",
    phoneHint: "We will send you a text when your question is answered.",
    orRecord: "Or record your voice",
    hold: "Hold to record",
    recording: "Recording… let go to stop",
    again: "Record again",
    send: "Send",
    sending: "Sending…",
    retrying: "No connection. Your recording is kept; trying again…",
    noMic: "Recording is not possible in this browser. You can write instead.",
    consent:
      "What you send goes to the family who shared this link. They decide whether it appears in their book. Your phone number is used only to tell you about the answer.",
    thanksTitle: "Thank you",
    thanks: "Your message was sent to the family. They will see it in Hikaya.",
    thanksPhone: "We will send a text to your number when it is answered.",
    back: "Back to the recordings",
    errorTitle: "Your message was not sent",
    errorName: `Write your name (up to ${FAMILY_NAME_MAX} characters).`,
    errorText: `Write a few lines (up to ${FAMILY_TEXT_MAX} characters) or record your voice.`,
    errorPhone: "This phone number is not valid. Write it with its country code, for example +962 7 9123 4567.",
    errorTooLarge: "The recording is too long: at most 5 minutes (10 MB).",
    errorFormat: "This recording cannot be read. Please record again.",
    errorRate: "Too many messages were sent through this link. Please try again later.",
    errorOther: "Something went wrong. Please try again.",
  },
  ar: {
    reply: "ردّ",
    ask: "اطرح سؤالًا",
    askIntro: "هل هناك ما تودّ معرفته؟ اسأل، وقد تجيبك العائلة بصوتها.",
    name: "اسمك",
    message: "رسالتك",
    question: "سؤالك",
    phone: "رقم هاتفك مع رمز الدولة (اختياري)",
    phoneHint: "سنرسل إليك رسالة نصية عندما يُجاب عن سؤالك.",
    orRecord: "أو سجّل صوتك",
    hold: "اضغط مطوّلًا للتسجيل",
    recording: "جارٍ التسجيل… ارفع إصبعك للإيقاف",
    again: "سجّل من جديد",
    send: "أرسل",
    sending: "جارٍ الإرسال…",
    retrying: "لا يوجد اتصال. تسجيلك محفوظ، وسنحاول مرة أخرى…",
    noMic: "لا يمكن التسجيل في هذا المتصفح. يمكنك الكتابة بدلًا من ذلك.",
    consent:
      "ما ترسله يصل إلى العائلة التي شاركت هذا الرابط، وهي التي تقرّر إن كان سيظهر في كتابها. لا نستخدم رقم هاتفك إلا لإبلاغك بالإجابة.",
    thanksTitle: "شكرًا لك",
    thanks: "وصلت رسالتك إلى العائلة، وستراها في حكاية.",
    thanksPhone: "سنرسل رسالة نصية إلى رقمك عندما يُجاب عنها.",
    back: "العودة إلى التسجيلات",
    errorTitle: "لم تُرسَل رسالتك",
    errorName: "اكتب اسمك (حتى ٨٠ حرفًا).",
    errorText: "اكتب بضعة أسطر (حتى ٢٠٠٠ حرف) أو سجّل صوتك.",
    errorPhone: "رقم الهاتف هذا غير صالح. اكتبه مع رمز الدولة، مثل ‎+962 7 9123 4567.",
    errorTooLarge: "التسجيل طويل جدًا: خمس دقائق على الأكثر (١٠ ميغابايت).",
    errorFormat: "تعذّرت قراءة هذا التسجيل. سجّل من جديد من فضلك.",
    errorRate: "أُرسل عدد كبير من الرسائل عبر هذا الرابط. حاول مرة أخرى لاحقًا.",
    errorOther: "حدث خطأ ما. حاول مرة أخرى.",
  },
} as const satisfies Record<Language, Record<string, string>>;

type Texts = (typeof FAMILY_TEXTS)[Language];
export type FamilyErrorKey = Extract<keyof Texts, `error${string}`>;

/** The sentence a refused message shows, from the error's code and field (the script does the same in the page). */
export function familyErrorKey(code: string, field: unknown): FamilyErrorKey {
  if (code === "invalid_phone") return "errorPhone";
  if (code === "payload_too_large") return "errorTooLarge";
  if (code === "unsupported_media_type") return "errorFormat";
  if (code === "rate_limited") return "errorRate";
  if (code === "validation_failed") return field === "name" ? "errorName" : field === "text" ? "errorText" : "errorOther";
  if (code === "bad_request") return "errorFormat";
  return "errorOther";
}

export const FAMILY_STYLE =
  "details{margin-top:.5rem}summary{cursor:pointer;color:#0b5cad;font-weight:600;padding:.5rem 0;min-height:44px}" +
  "form label{display:block;margin-top:.75rem;font-weight:600}form input,form textarea{box-sizing:border-box;width:100%;" +
  "font:inherit;padding:.5rem;border:1px solid #888;border-radius:.5rem}form textarea{min-height:5rem}" +
  ".hint,.consent{color:#555;font-size:.85rem}button{font:inherit;min-height:44px;padding:.5rem 1rem;border-radius:.5rem;" +
  "border:1px solid #0b5cad;background:#0b5cad;color:#fff;margin-top:.75rem}button.hold{background:#fff;color:#0b5cad;" +
  "width:100%;touch-action:none;user-select:none;-webkit-user-select:none}button.hold[aria-pressed=true]{background:#b00020;" +
  "border-color:#b00020;color:#fff}.status{min-height:1.5rem}.error{color:#b00020}.ask{border-top:2px solid #bbb}";

const field = (label: string, control: string, hint = "") =>
  `<label>${label}${control}</label>${hint ? `<p class="hint">${hint}</p>` : ""}`;

/** One form; `voice` names the voice a reply is for, none for a question. */
function form(token: string, language: Language, kind: "reply" | "question", voice: string | null, id: string): string {
  const t = FAMILY_TEXTS[language];
  const hidden =
    `<input type="hidden" name="kind" value="${kind}">` +
    (voice ? `<input type="hidden" name="voice" value="${escapeHtml(voice)}">` : "");
  const phone =
    kind === "question"
      ? field(t.phone, `<input name="phone" type="tel" inputmode="tel" autocomplete="tel" dir="ltr" maxlength="32">`, t.phoneHint)
      : "";
  // The recorder block stays hidden until the script finds a microphone API; without script, the form is typed.
  const recorder =
    `<div class="recorder" hidden><p><strong>${t.orRecord}</strong></p>` +
    `<button type="button" class="hold" aria-pressed="false">${t.hold}</button>` +
    `<p class="status" role="status" aria-live="polite"></p></div>`;
  return (
    `<form method="post" action="/k/${token}/messages" enctype="multipart/form-data" data-family-form id="${id}">` +
    hidden +
    field(t.name, `<input name="name" required maxlength="${FAMILY_NAME_MAX}" autocomplete="name">`) +
    field(kind === "question" ? t.question : t.message, `<textarea name="text" maxlength="${FAMILY_TEXT_MAX}"></textarea>`) +
    recorder +
    phone +
    `<p class="consent">${t.consent}</p><p class="error" role="alert"></p>` +
    `<button type="submit">${t.send}</button></form>`
  );
}

/** "Reply" under one voice. */
export const replyForm = (token: string, language: Language, voice: string, index: number) =>
  `<details><summary>${FAMILY_TEXTS[language].reply}</summary>${form(token, language, "reply", voice, `reply-${index}`)}</details>`;

/** "Ask a question" for the book, at the page's end. */
export function askForm(token: string, language: Language): string {
  const t = FAMILY_TEXTS[language];
  return `<section class="ask"><h2>${t.ask}</h2><p>${t.askIntro}</p>${form(token, language, "question", null, "ask")}</section>`;
}

/** What the script needs to speak the page's language: its strings, in one attribute (no inline script). */
export function scriptData(language: Language): string {
  return escapeHtml(JSON.stringify(FAMILY_TEXTS[language]));
}

/** After a typed message posted without script. */
export function thanksBody(token: string, language: Language, phone: boolean): { title: string; body: string } {
  const t = FAMILY_TEXTS[language];
  return {
    title: t.thanksTitle,
    body:
      `<h1>${t.thanksTitle}</h1><p>${t.thanks}</p>${phone ? `<p>${t.thanksPhone}</p>` : ""}` +
      `<p><a href="/k/${token}">${t.back}</a></p>`,
  };
}

/** A refused message posted without script: why, in the book's language, and the way back. */
export function refusedBody(token: string, language: Language, key: FamilyErrorKey): { title: string; body: string } {
  const t = FAMILY_TEXTS[language];
  return {
    title: t.errorTitle,
    body: `<h1>${t.errorTitle}</h1><p class="error">${t[key]}</p><p><a href="/k/${token}">${t.back}</a></p>`,
  };
}
