import type { Language } from "@hikaya/contracts";
import { askForm, FAMILY_STYLE, replyForm, scriptData } from "./family-page.ts";
import { escapeHtml, formatDay, formatLength, metaSeparator, wordsHtml } from "./html.ts";
import type { ListeningPage } from "./listening.service.ts";

/**
 * The listening pages a QR code opens: plain server-rendered HTML with an <audio> element and no app bundle, so
 * they load on an old phone and pass the site's CSP (inline styles are allowed, scripts are not). Relatives reply
 * and ask through forms that post without script; one small script file (`/k/family-reply.js`) adds the recorder.
 */
const TEXTS = {
  en: {
    listen: "Listen",
    read: "Read",
    family: "The family",
    length: "Length",
    recorded: "Recorded",
    questions: "Questions from your family",
    asked: "Asked by",
    notFoundTitle: "This link does not work",
    notFound: "This link was turned off by the family, has expired, or is not complete. Ask the family for a new one.",
    noAudio: "Your browser cannot play this recording.",
  },
  ar: {
    listen: "استمع",
    read: "اقرأ",
    family: "العائلة",
    length: "المدة",
    recorded: "سُجّل في",
    questions: "أسئلة من عائلتك",
    asked: "سأل",
    notFoundTitle: "هذا الرابط لا يعمل",
    notFound: "أوقفت العائلة هذا الرابط، أو انتهت صلاحيته، أو أنه غير مكتمل. اطلب من العائلة رابطًا جديدًا.",
    noAudio: "لا يستطيع متصفحك تشغيل هذا التسجيل.",
  },
} as const satisfies Record<Language, Record<string, string>>;

const STYLE =
  "body{font-family:system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#222}" +
  "h1{font-size:1.5rem}h2{font-size:1.1rem;margin:0}section{border-top:1px solid #ddd;padding:1rem 0}" +
  "p{margin:.25rem 0}.meta{color:#555;font-size:.9rem}audio{width:100%;margin-top:.5rem}.words p{white-space:pre-line}";

export const shell = (language: Language, title: string, body: string, head = "", bodyAttributes = "") =>
  `<!doctype html><html lang="${language}" dir="${language === "ar" ? "rtl" : "ltr"}"><head><meta charset="utf-8">` +
  `<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">` +
  `<title>${escapeHtml(title)}</title><style>${STYLE}${FAMILY_STYLE}</style>${head}</head><body${bodyAttributes}>${body}</body></html>`;

export function listeningPage(token: string, page: ListeningPage): string {
  const t = TEXTS[page.language];
  const sections = page.voices.map((v, index) => {
    const speaker = v.ownVoice ? v.speakerName || t.family : v.speakerName;
    const length = formatLength(v.durationSeconds, page.language);
    const meta = [`${t.recorded} ${formatDay(v.recordedAt, page.language)}`, length ? `${t.length} ${length}` : ""]
      .filter(Boolean)
      .join(metaSeparator(page.language));
    return (
      `<section><h2>${escapeHtml(v.storyTitle)}</h2><p>${escapeHtml(speaker)}</p><p class="meta">${escapeHtml(meta)}</p>` +
      `<audio controls preload="metadata" src="/k/${token}/${v.slug}/audio">${t.noAudio}</audio>` +
      `${wordsHtml(v.words, t.read)}${replyForm(token, page.language, v.slug, index)}</section>`
    );
  });
  const answered = page.questions.map(
    (q) =>
      `<article id="answer-${escapeHtml(q.id)}"><p class="meta">${t.asked} ${escapeHtml(q.name)}</p>` +
      `${q.text ? `<p><strong>${escapeHtml(q.text)}</strong></p>` : ""}` +
      `<audio controls preload="metadata" src="/k/${token}/${q.slug}/audio">${t.noAudio}</audio></article>`,
  );
  if (answered.length > 0) sections.push(`<section class="questions"><h2>${t.questions}</h2>${answered.join("")}</section>`);
  const title = page.bookTitle ?? page.voices[0]?.storyTitle ?? t.listen;
  const dedication = page.dedication ? `<p>${escapeHtml(page.dedication)}</p>` : "";
  return shell(
    page.language,
    title,
    `<h1>${escapeHtml(title)}</h1>${dedication}${sections.join("")}${askForm(token, page.language)}`,
    `<script src="/k/family-reply.js" defer></script>`,
    ` data-family="${scriptData(page.language)}"`,
  );
}

/** A link that opens nothing says so in both languages: the page cannot know whose language it was. */
export function linkNotFoundPage(): string {
  const part = (language: Language) =>
    `<div lang="${language}" dir="${language === "ar" ? "rtl" : "ltr"}"><h1>${TEXTS[language].notFoundTitle}</h1><p>${TEXTS[language].notFound}</p></div>`;
  return shell("en", `${TEXTS.en.notFoundTitle} · ${TEXTS.ar.notFoundTitle}`, `${part("en")}<hr>${part("ar")}`);
}
