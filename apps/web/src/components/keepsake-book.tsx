import type { Keepsake, KeepsakeLink, KeepsakeVoice, KeepsakeVoiceRef } from "@hikaya/contracts";
import { type Language, useLanguage, useTranslation } from "../lib/i18n.ts";
import "./keepsake-book.css";

export type PageSize = "A5" | "A4";

/** Digits as the book's language writes them: Arabic-Indic in Arabic (a printed book, unlike the app's screens). */
const locale = (language: Language) => (language === "ar" ? "ar-u-nu-arab" : "en-GB");
export const formatNumber = (n: number, language: Language) => new Intl.NumberFormat(locale(language)).format(n);
export const formatDay = (iso: string, language: Language) =>
  new Intl.DateTimeFormat(locale(language), { dateStyle: "long" }).format(new Date(iso));
export function formatLength(seconds: number, language: Language): string {
  const total = Math.max(0, Math.round(seconds));
  const pad = new Intl.NumberFormat(locale(language), { minimumIntegerDigits: 2, useGrouping: false });
  return `${formatNumber(Math.floor(total / 60), language)}:${pad.format(total % 60)}`;
}

export const refKey = (v: KeepsakeVoiceRef) => `${v.kind}:${v.id}`;

/** Between a voice's date and its length: in Arabic a middle dot reads as the digit zero (٠), so a comma. */
const metaSeparator = (language: Language) => (language === "ar" ? "، " : " · ");

/** A CSS string literal: what `content:` in the running title needs (quotes and backslashes escaped, one line). */
const cssString = (s: string) => `"${s.replace(/[\\"]/g, "\\$&").replace(/[\r\n]+/g, " ")}"`;

function Qr({ link, label }: { link: KeepsakeLink; label: string }) {
  return (
    <figure className="keepsake-qr" data-target={link.url}>
      <img src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(link.qrSvg)}`} alt={label} width={96} height={96} />
      <figcaption>{label}</figcaption>
    </figure>
  );
}

export interface BookProps {
  keepsake: Keepsake;
  /** The voices in the book, in order; the server's choice when not given (the console's read-only copy). */
  chosen?: KeepsakeVoiceRef[];
  title: string;
  dedication: string;
  size: PageSize;
  /**
   * Who is looking: the family, who can share the book from the same screen, or an operator (the console's copy),
   * who cannot share it on the family's behalf and is told why an unshared book prints without QR codes.
   */
  reader?: "family" | "operator";
}

/**
 * The printable book (the family's /keepsake and the console's copy of a person's; strings from the `keepsake`
 * namespace, which either screen loads): a cover with the title, dedication and the whole-book QR code, then one page (or more) per
 * story with its thumbnail, questions and the chosen voices, each with its date, length and QR code. Printing it
 * uses the browser's own dialog; the @page rules below give the page size, running title and page numbers.
 */
export function KeepsakeBook({ keepsake, chosen, title, dedication, size, reader = "family" }: BookProps) {
  const { t } = useTranslation("keepsake");
  const language = useLanguage();
  const bookTitle = title.trim() || t("book.defaultTitle");
  const order = new Map(
    (chosen ?? keepsake.stories.flatMap((s) => s.voices.filter((v) => v.included))).map((v, i) => [refKey(v), i]),
  );
  const bookLink = keepsake.links.find((l) => l.scope === "book");
  // Only stories with chosen voices get a page, numbered as the book's pages run.
  const pages = keepsake.stories
    .map((story) => ({
      story,
      voices: story.voices
        .filter((v) => order.has(refKey(v)))
        .sort((a, b) => (order.get(refKey(a)) ?? 0) - (order.get(refKey(b)) ?? 0)),
    }))
    .filter((page) => page.voices.length > 0);
  // Replies the family chose to show sit under the voice they answer.
  const repliesTo = new Map<string, Keepsake["family"]["replies"]>();
  for (const r of keepsake.family.replies)
    if (r.voice) repliesTo.set(refKey(r.voice), [...(repliesTo.get(refKey(r.voice)) ?? []), r]);
  const speaker = (v: KeepsakeVoice) =>
    v.ownVoice ? keepsake.familyName || t("book.family") : language === "ar" ? v.speakerNameAr : v.speakerNameEn;
  const pageRules =
    `@page{size:${size};margin:18mm 14mm;@top-center{content:${cssString(bookTitle)};font-size:9pt;color:#666}` +
    `@bottom-center{content:counter(page${language === "ar" ? ", arabic-indic" : ""});font-size:9pt}}` +
    // The cover carries neither the running title nor a page number, as a printed book's cover does not.
    "@page:first{@top-center{content:none}@bottom-center{content:none}}";
  return (
    <article className="keepsake-book" lang={language} dir={language === "ar" ? "rtl" : "ltr"} aria-label={t("book.label")}>
      <style>{pageRules}</style>
      <section className="keepsake-cover">
        <h2 className="keepsake-cover__title">{bookTitle}</h2>
        {keepsake.familyName ? <p className="keepsake-cover__family">{keepsake.familyName}</p> : null}
        {dedication.trim() ? <p className="keepsake-cover__dedication">{dedication.trim()}</p> : null}
        {bookLink ? (
          <Qr link={bookLink} label={t("book.scanBook")} />
        ) : (
          <p className="keepsake-note keepsake-cover__unshared">
            {t(reader === "operator" ? "book.notSharedByFamily" : "book.notShared")}
          </p>
        )}
      </section>
      {pages.map(({ story, voices }, index) => {
        const present = voices.filter((v) => !v.missing);
        const missing = voices.filter((v) => v.missing);
        const storyTitle = language === "ar" ? story.titleAr : story.titleEn;
        return (
          <section key={story.id} className="keepsake-story">
            <header className="keepsake-story__head">
              {story.thumbnailUrl ? <img className="keepsake-story__thumb" src={story.thumbnailUrl} alt="" /> : null}
              <div>
                <p className="keepsake-story__number">{t("book.story", { n: formatNumber(index + 1, language) })}</p>
                <h3 className="keepsake-story__title">{storyTitle}</h3>
                {story.questionCount > 0 ? (
                  <p className="keepsake-story__questions">
                    {t("book.questions", { count: story.questionCount, n: formatNumber(story.questionCount, language) })}
                  </p>
                ) : null}
              </div>
            </header>
            <ul className="keepsake-voices">
              {present.map((v) => (
                <li key={refKey(v)} className="keepsake-voice">
                  <div className="keepsake-voice__text">
                    <p className="keepsake-voice__speaker">{speaker(v)}</p>
                    {v.questionIndex !== null ? (
                      <p>{t("book.question", { n: formatNumber(v.questionIndex + 1, language) })}</p>
                    ) : null}
                    <p className="keepsake-voice__meta">
                      {t("book.recorded", { date: formatDay(v.recordedAt, language) })}
                      {v.durationSeconds !== null
                        ? `${metaSeparator(language)}${t("book.length", { length: formatLength(v.durationSeconds, language) })}`
                        : ""}
                    </p>
                    {v.words ? (
                      // Marked with its language, so a screen reader or a search reads it aright; the storyteller's
                      // own words take the direction of their first letter.
                      <p
                        className="keepsake-voice__words"
                        lang={v.words.language ?? undefined}
                        dir={v.words.language ? (v.words.language === "ar" ? "rtl" : "ltr") : "auto"}
                      >
                        {v.words.text}
                      </p>
                    ) : null}
                  </div>
                  {v.link ? <Qr link={v.link} label={t("book.scan")} /> : null}
                  {(repliesTo.get(refKey(v)) ?? []).map((r) => (
                    <blockquote key={r.id} className="keepsake-reply">
                      <p className="keepsake-voice__speaker">{t("book.reply", { name: r.name })}</p>
                      <p>{r.text ?? t("book.recordedReply")}</p>
                    </blockquote>
                  ))}
                </li>
              ))}
            </ul>
            {missing.map((v) => (
              <p key={refKey(v)} className="keepsake-note" role="note">
                {t("book.missing", { speaker: speaker(v) })}
              </p>
            ))}
          </section>
        );
      })}
      {keepsake.family.questions.length > 0 ? (
        <section className="keepsake-story keepsake-family">
          <h3 className="keepsake-story__title">{t("book.familyQuestions")}</h3>
          <ul className="keepsake-voices">
            {keepsake.family.questions.map((q) => (
              <li key={q.id} className="keepsake-voice keepsake-family__question">
                <div className="keepsake-voice__text">
                  <p className="keepsake-voice__speaker">{t("book.asked", { name: q.name })}</p>
                  <p className="keepsake-family__text">{q.text ?? t("book.recordedQuestion")}</p>
                  {q.answeredAt ? (
                    <p className="keepsake-voice__meta">
                      {t("book.answered", {
                        name: keepsake.familyName || t("book.family"),
                        date: formatDay(q.answeredAt, language),
                      })}
                    </p>
                  ) : null}
                </div>
              </li>
            ))}
          </ul>
          {bookLink ? <p className="keepsake-note">{t("book.scanAnswers")}</p> : null}
        </section>
      ) : null}
    </article>
  );
}
