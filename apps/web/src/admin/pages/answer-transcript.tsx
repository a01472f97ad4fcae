import type { AdminAnswer } from "@hikaya/contracts";
import { useId, useState } from "react";
import { ApiError } from "../../lib/api-client.ts";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";
import { adminQueries, useUpdateAnswer } from "../api.ts";
import { StaleNotice, staleCurrent } from "../components/stale-notice.tsx";
import { refusedField } from "../logic.ts";

/**
 * What a family member's answer says, in English and in Arabic (issue 39, WCAG 1.2.1): families read the one of
 * their language under the player and in their book. Saved with the answer's version, like a new recording.
 */
export function AnswerTranscript({ storyId, answer, name }: { storyId: string; answer: AdminAnswer; name: string }) {
  const { t } = useTranslation("admin");
  const id = useId();
  const update = useUpdateAnswer(storyId);
  const [en, setEn] = useState(answer.transcript.en ?? "");
  const [ar, setAr] = useState(answer.transcript.ar ?? "");
  const [problem, setProblem] = useState<string | null>(null);
  const [stale, setStale] = useState<AdminAnswer | null>(null);
  // A reload after a stale save (or another operator's save) puts the stored words back into the boxes.
  const [seen, setSeen] = useState(answer.version);
  if (seen !== answer.version) {
    setSeen(answer.version);
    setEn(answer.transcript.en ?? "");
    setAr(answer.transcript.ar ?? "");
  }

  async function save(event: React.FormEvent) {
    event.preventDefault();
    setProblem(null);
    try {
      await update.mutateAsync({
        id: answer.id,
        input: { characterId: answer.characterId, audio: answer.audio, transcript: { en, ar }, version: answer.version },
      });
      setStale(null);
      toast.success(t("common.saved"));
    } catch (error) {
      const current = staleCurrent<AdminAnswer>(error);
      const refused = error instanceof ApiError && error.code === "validation_failed" ? refusedField(error.details) : null;
      if (current) setStale(current);
      else if (refused?.reason === "too_big")
        setProblem(t(refused.field === "ar" ? "transcript.tooLongAr" : "transcript.tooLongEn"));
      else toast.error(errorText(error));
    }
  }

  return (
    <form className="admin-transcript" method="post" onSubmit={save} aria-label={t("transcript.title", { name })}>
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
      <button type="submit" className="admin-button" disabled={update.isPending}>
        {t("transcript.save", { name })}
      </button>
      {stale && (
        <StaleNotice
          queryKey={adminQueries.questions(storyId).queryKey}
          rows={[
            { label: t("transcript.en"), value: stale.transcript.en ?? "—" },
            { label: t("transcript.ar"), value: stale.transcript.ar ?? "—" },
          ]}
        />
      )}
    </form>
  );
}
