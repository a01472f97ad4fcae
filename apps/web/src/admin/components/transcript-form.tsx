import type { Transcript } from "@hikaya/contracts";
import type { QueryKey } from "@tanstack/react-query";
import { useId, useState } from "react";
import { ApiError } from "../../lib/api-client.ts";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";
import { refusedField } from "../logic.ts";
import { StaleNotice, staleCurrent } from "./stale-notice.tsx";

/**
 * What a voice says, in English and in Arabic (issue 39, WCAG 1.2.1): families read the one of their language under
 * the player. One form for every voice (a story's answers, the characters screen's); `save` sends the words with the
 * version the form shows, like a new recording, and a stale save shows what is stored.
 */
export function TranscriptForm({
  transcript,
  version,
  name,
  queryKey,
  save,
}: {
  transcript: Transcript;
  version: number;
  /** Whose voice, for the form's and the button's accessible names. */
  name: string;
  /** The list a stale save reloads. */
  queryKey: QueryKey;
  save(transcript: { en: string; ar: string }): Promise<unknown>;
}) {
  const { t } = useTranslation("admin");
  const id = useId();
  const [pending, setPending] = useState(false);
  const [en, setEn] = useState(transcript.en ?? "");
  const [ar, setAr] = useState(transcript.ar ?? "");
  const [problem, setProblem] = useState<string | null>(null);
  const [stale, setStale] = useState<{ transcript: Transcript } | null>(null);
  // A reload after a stale save (or another operator's save) puts the stored words back into the boxes.
  const [seen, setSeen] = useState(version);
  if (seen !== version) {
    setSeen(version);
    setEn(transcript.en ?? "");
    setAr(transcript.ar ?? "");
  }

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    setProblem(null);
    setPending(true);
    try {
      await save({ en, ar });
      setStale(null);
      toast.success(t("common.saved"));
    } catch (error) {
      const current = staleCurrent<{ transcript: Transcript }>(error);
      const refused = error instanceof ApiError && error.code === "validation_failed" ? refusedField(error.details) : null;
      if (current) setStale(current);
      else if (refused?.reason === "too_big")
        setProblem(t(refused.field === "ar" ? "transcript.tooLongAr" : "transcript.tooLongEn"));
      else toast.error(errorText(error));
    } finally {
      setPending(false);
    }
  }

  return (
    <form className="admin-transcript" method="post" onSubmit={submit} aria-label={t("transcript.title", { name })}>
      <div className="admin-field">
        <label htmlFor={`${id}-en`}>{t("transcript.en")}</label>
        <textarea
          id={`${id}-en`}
          className="admin-input"
          lang="en"
          dir="ltr"
          rows={3}
          value={en}
          onChange={(e) => setEn(e.target.value)}
        />
      </div>
      <div className="admin-field">
        <label htmlFor={`${id}-ar`}>{t("transcript.ar")}</label>
        <textarea
          id={`${id}-ar`}
          className="admin-input"
          lang="ar"
          dir="rtl"
          rows={3}
          value={ar}
          onChange={(e) => setAr(e.target.value)}
        />
      </div>
      {problem && (
        <p className="admin-error" role="alert">
          {problem}
        </p>
      )}
      <button type="submit" className="admin-button" disabled={pending}>
        {t("transcript.save", { name })}
      </button>
      {stale && (
        <StaleNotice
          queryKey={queryKey}
          rows={[
            { label: t("transcript.en"), value: stale.transcript.en ?? "—" },
            { label: t("transcript.ar"), value: stale.transcript.ar ?? "—" },
          ]}
        />
      )}
    </form>
  );
}
