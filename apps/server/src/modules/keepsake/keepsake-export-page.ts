import type { Language, VoiceWords } from "@hikaya/contracts";
import { escapeHtml, formatDay, formatLength, metaSeparator, wordsHtml } from "./html.ts";

/** What the download's `index.html` lists, in the book's order, with each file's path inside the ZIP. */
export interface ExportPage {
  language: Language;
  title: string;
  familyName: string | null;
  stories: {
    title: string;
    voices: { path: string; speaker: string; recordedAt: string; seconds: number | null; words: VoiceWords | null }[];
  }[];
  questions: { name: string; text: string | null; path: string | null; answerPath: string | null; answeredAt: string | null }[];
  replies: { name: string; text: string | null; path: string | null }[];
}

const TEXTS = {
  en: {
    defaultTitle: "Our family's stories",
    intro: "Every recording of your keepsake, to keep. Open the files beside this page, even without a connection.",
    family: "The family",
    read: "Read",
    recorded: "Recorded",
    length: "Length",
    questions: "Questions from your family",
    asked: "A question from",
    answer: "The answer",
    answered: "Answered",
    replies: "Replies from your family",
    reply: "A reply from",
    file: "Open the file",
  },
  ar: {
    defaultTitle: "حكايات عائلتنا",
    intro: "كل تسجيلات كتاب الذكرى لتحتفظ بها. افتح الملفات الموجودة بجانب هذه الصفحة، حتى دون اتصال.",
    family: "العائلة",
    read: "اقرأ",
    recorded: "سُجّل في",
    length: "المدة",
    questions: "أسئلة من عائلتك",
    asked: "سؤال من",
    answer: "الإجابة",
    answered: "أُجيب عنه في",
    replies: "ردود من عائلتك",
    reply: "ردّ من",
    file: "افتح الملف",
  },
} as const satisfies Record<Language, Record<string, string>>;

const STYLE =
  "body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#222}" +
  "section{border-top:1px solid #ddd;padding:1rem 0}li{margin:.75rem 0}audio{display:block;width:100%}.meta{color:#555}.words p{white-space:pre-line}";

/** A relative link to a file of the ZIP (its path is ASCII, but a link is a URL all the same). */
const player = (path: string, label: string) =>
  `<audio controls preload="none" src="${escapeHtml(encodeURI(path))}"></audio><a href="${escapeHtml(encodeURI(path))}">${escapeHtml(label)}</a>`;

/** The download's own page: plain HTML with relative links, in the person's language, opened from the unzipped folder. */
export function exportIndexPage(page: ExportPage): string {
  const t = TEXTS[page.language];
  const title = page.title.trim() || t.defaultTitle;
  const stories = page.stories.map(
    (s) =>
      `<section><h2>${escapeHtml(s.title)}</h2><ol>${s.voices
        .map((v) => {
          const length = formatLength(v.seconds, page.language);
          const meta = `${t.recorded} ${formatDay(v.recordedAt, page.language)}${length ? `${metaSeparator(page.language)}${t.length} ${length}` : ""}`;
          return `<li><strong>${escapeHtml(v.speaker || t.family)}</strong><p class="meta">${escapeHtml(meta)}</p>${player(v.path, t.file)}${wordsHtml(v.words, t.read)}</li>`;
        })
        .join("")}</ol></section>`,
  );
  const questions = page.questions.length
    ? `<section><h2>${t.questions}</h2><ol>${page.questions
        .map(
          (q) =>
            `<li><strong>${t.asked} ${escapeHtml(q.name)}</strong>${q.text ? `<p>${escapeHtml(q.text)}</p>` : ""}` +
            `${q.path ? player(q.path, t.file) : ""}` +
            `${q.answerPath ? `<p class="meta">${t.answer}${q.answeredAt ? `${metaSeparator(page.language)}${t.answered} ${formatDay(q.answeredAt, page.language)}` : ""}</p>${player(q.answerPath, t.file)}` : ""}</li>`,
        )
        .join("")}</ol></section>`
    : "";
  const replies = page.replies.length
    ? `<section><h2>${t.replies}</h2><ol>${page.replies
        .map(
          (r) =>
            `<li><strong>${t.reply} ${escapeHtml(r.name)}</strong>${r.text ? `<p>${escapeHtml(r.text)}</p>` : ""}${r.path ? player(r.path, t.file) : ""}</li>`,
        )
        .join("")}</ol></section>`
    : "";
  const family = page.familyName ? `<p>${escapeHtml(page.familyName)}</p>` : "";
  return (
    `<!doctype html><html lang="${page.language}" dir="${page.language === "ar" ? "rtl" : "ltr"}"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>` +
    `<body><h1>${escapeHtml(title)}</h1>${family}<p>${t.intro}</p>${stories.join("")}${questions}${replies}</body></html>`
  );
}
