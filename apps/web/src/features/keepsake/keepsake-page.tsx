import type { Keepsake, KeepsakeShare, KeepsakeVoice, KeepsakeVoiceRef } from "@hikaya/contracts";
import { useEffect, useState } from "react";
import { formatDay, formatLength, KeepsakeBook, type PageSize, refKey } from "../../components/keepsake-book.tsx";
import { useRequireUser } from "../../components/require-user.ts";
import { PageSpinner } from "../../components/spinner.tsx";
import { TitleBar } from "../../components/title-bar.tsx";
import { errorText } from "../../lib/errors.ts";
import { useLanguage, useTranslation } from "../../lib/i18n.ts";
import { Link } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { downloadKeepsake, useKeepsake, useRevokeLink, useSaveKeepsake, useShareKeepsake } from "./api/keepsake.ts";
import "./keepsake.css";
import { RecordingWords } from "./recording-words.tsx";

interface Draft {
  title: string;
  dedication: string;
  voices: KeepsakeVoiceRef[];
}

const draftOf = (k: Keepsake): Draft => ({
  title: k.title,
  dedication: k.dedication,
  voices: k.stories.flatMap((s) => s.voices.filter((v) => v.included).map((v) => ({ kind: v.kind, id: v.id }))),
});

/** Moves a voice one place among the chosen voices of its own story (the book groups voices by story). */
function move(voices: KeepsakeVoiceRef[], storyVoices: KeepsakeVoice[], key: string, step: -1 | 1): KeepsakeVoiceRef[] {
  const inStory = new Set(storyVoices.map(refKey));
  const places = voices.map((v, i) => [v, i] as const).filter(([v]) => inStory.has(refKey(v)));
  const at = places.findIndex(([v]) => refKey(v) === key);
  const other = places[at + step];
  const here = places[at];
  if (!other || !here) return voices;
  const next = [...voices];
  next[here[1]] = other[0];
  next[other[1]] = here[0];
  return next;
}

/** /keepsake: the family chooses what goes in their book, sees it as it will print, shares it and prints it. */
export function KeepsakePage() {
  const { t } = useTranslation("keepsake");
  const signedIn = useRequireUser();
  const language = useLanguage();
  const keepsake = useKeepsake();
  const save = useSaveKeepsake();
  const share = useShareKeepsake();
  const revoke = useRevokeLink();
  const [draft, setDraft] = useState<Draft | null>(null);
  const [size, setSize] = useState<PageSize>("A5");
  const [expiry, setExpiry] = useState<KeepsakeShare["expiry"]>("never");
  const [downloading, setDownloading] = useState(false);

  useEffect(() => {
    if (keepsake.data && !draft) setDraft(draftOf(keepsake.data));
  }, [keepsake.data, draft]);

  if (!signedIn) return null;
  const data = keepsake.data;
  if (!data || !draft) return keepsake.isError ? <p role="alert">{errorText(keepsake.error)}</p> : <PageSpinner />;

  const header = <TitleBar title={t("page.title")} backTo="/" />;
  if (!data.hasRecordings) {
    return (
      <div className="screen keepsake-page">
        {header}
        <section className="keepsake-empty">
          <h1>{t("empty.title")}</h1>
          <p>{t("empty.body")}</p>
          <Link to="/" className="keepsake-button">
            {t("empty.action")}
          </Link>
        </section>
      </div>
    );
  }

  const chosen = new Set(draft.voices.map(refKey));
  const toggle = (v: KeepsakeVoice) =>
    setDraft({
      ...draft,
      voices: chosen.has(refKey(v))
        ? draft.voices.filter((x) => refKey(x) !== refKey(v))
        : [...draft.voices, { kind: v.kind, id: v.id }],
    });
  const speaker = (v: KeepsakeVoice) =>
    v.ownVoice ? data.familyName || t("book.family") : language === "ar" ? v.speakerNameAr : v.speakerNameEn;
  const persist = () => save.mutateAsync(draft);
  const onSave = () =>
    persist().then(
      () => toast.success(t("saved")),
      (error: unknown) => toast.error(errorText(error)),
    );
  const onShare = async () => {
    try {
      await persist();
      await share.mutateAsync(expiry);
      toast.success(t("share.done"));
    } catch (error) {
      toast.error(errorText(error));
    }
  };
  const voiceName = (ref: KeepsakeVoiceRef | null) => {
    const story = ref && data.stories.find((s) => s.voices.some((v) => refKey(v) === refKey(ref)));
    const voice = ref && story?.voices.find((v) => refKey(v) === refKey(ref));
    if (!story || !voice) return "";
    return t("links.voice", { speaker: speaker(voice), story: language === "ar" ? story.titleAr : story.titleEn });
  };

  return (
    <div className="screen keepsake-page">
      {header}
      <div className="keepsake-editor">
        <h1>{t("page.heading")}</h1>
        <p>{t("page.intro")}</p>
        <label className="keepsake-field">
          <span>{t("form.title")}</span>
          <input
            value={draft.title}
            maxLength={120}
            placeholder={t("book.defaultTitle")}
            onChange={(e) => setDraft({ ...draft, title: e.currentTarget.value })}
          />
        </label>
        <label className="keepsake-field">
          <span>{t("form.dedication")}</span>
          <textarea
            value={draft.dedication}
            maxLength={1000}
            rows={3}
            onChange={(e) => setDraft({ ...draft, dedication: e.currentTarget.value })}
          />
        </label>

        <h2>{t("voices.heading")}</h2>
        {data.stories.map((story) => {
          const voices = [...story.voices].sort((a, b) => {
            const ia = draft.voices.findIndex((x) => refKey(x) === refKey(a));
            const ib = draft.voices.findIndex((x) => refKey(x) === refKey(b));
            return (ia < 0 ? Number.MAX_SAFE_INTEGER : ia) - (ib < 0 ? Number.MAX_SAFE_INTEGER : ib);
          });
          return (
            <fieldset key={story.id} className="keepsake-choices">
              <legend>{language === "ar" ? story.titleAr : story.titleEn}</legend>
              {voices.length === 0 ? <p className="keepsake-note">{t("voices.none")}</p> : null}
              {voices.map((v) => {
                const name = speaker(v);
                const label = t("voices.label", { speaker: name, date: formatDay(v.recordedAt, language) });
                return (
                  <div key={refKey(v)} className="keepsake-choice">
                    <label>
                      <input type="checkbox" checked={chosen.has(refKey(v))} onChange={() => toggle(v)} />
                      <span>{label}</span>
                      {v.durationSeconds !== null ? (
                        <span className="keepsake-choice__length">
                          {t("voices.length", { length: formatLength(v.durationSeconds, language) })}
                        </span>
                      ) : null}
                    </label>
                    {v.missing ? (
                      <p className="keepsake-note">{t("voices.missing")}</p>
                    ) : (
                      <audio controls preload="none" src={v.audioUrl} aria-label={label} />
                    )}
                    {v.kind === "recording" ? <RecordingWords voice={v} label={label} /> : null}
                    {chosen.has(refKey(v)) ? (
                      <span className="keepsake-choice__moves">
                        <button
                          type="button"
                          onClick={() => setDraft({ ...draft, voices: move(draft.voices, story.voices, refKey(v), -1) })}
                        >
                          {t("voices.moveUp", { name: label })}
                        </button>
                        <button
                          type="button"
                          onClick={() => setDraft({ ...draft, voices: move(draft.voices, story.voices, refKey(v), 1) })}
                        >
                          {t("voices.moveDown", { name: label })}
                        </button>
                      </span>
                    ) : null}
                  </div>
                );
              })}
            </fieldset>
          );
        })}
        <button type="button" className="keepsake-button" onClick={onSave} disabled={save.isPending}>
          {t("form.save")}
        </button>

        <h2>{t("share.heading")}</h2>
        <p>{t("share.explain")}</p>
        <label className="keepsake-field">
          <span>{t("share.expiry")}</span>
          <select value={expiry} onChange={(e) => setExpiry(e.currentTarget.value as KeepsakeShare["expiry"])}>
            <option value="never">{t("share.never")}</option>
            <option value="year">{t("share.year")}</option>
            <option value="month">{t("share.month")}</option>
          </select>
        </label>
        <button
          type="button"
          className="keepsake-button"
          onClick={onShare}
          disabled={share.isPending || draft.voices.length === 0}
        >
          {t("share.button")}
        </button>

        <h2>{t("links.heading")}</h2>
        {data.links.length === 0 ? <p>{t("links.none")}</p> : null}
        <ul className="keepsake-links">
          {data.links.map((link) => {
            const name = link.scope === "book" ? t("links.book") : voiceName(link.voice);
            return (
              <li key={link.id}>
                <span>{name}</span>
                <span className="keepsake-note">
                  {link.expiresAt ? t("links.until", { date: formatDay(link.expiresAt, language) }) : t("links.noEnd")}
                </span>
                <button
                  type="button"
                  onClick={() =>
                    revoke.mutateAsync(link.id).then(
                      () => toast.success(t("links.revoked")),
                      (error: unknown) => toast.error(errorText(error)),
                    )
                  }
                >
                  {t("links.revoke", { name })}
                </button>
              </li>
            );
          })}
        </ul>

        <h2>{t("print.heading")}</h2>
        <label className="keepsake-field">
          <span>{t("print.size")}</span>
          <select value={size} onChange={(e) => setSize(e.currentTarget.value as PageSize)}>
            <option value="A5">A5</option>
            <option value="A4">A4</option>
          </select>
        </label>
        <p>{t("print.hint")}</p>
        <button type="button" className="keepsake-button" onClick={() => window.print()}>
          {t("print.button")}
        </button>
        <h2>{t("download.heading")}</h2>
        <p>{t("download.hint")}</p>
        <button
          type="button"
          className="keepsake-button"
          disabled={downloading}
          aria-busy={downloading}
          onClick={() => {
            setDownloading(true);
            downloadKeepsake(language)
              .catch((error: unknown) => toast.error(errorText(error)))
              .finally(() => setDownloading(false));
          }}
        >
          {t("download.button")}
        </button>
        <h2>{t("book.preview")}</h2>
      </div>
      <KeepsakeBook keepsake={data} chosen={draft.voices} title={draft.title} dedication={draft.dedication} size={size} />
    </div>
  );
}
