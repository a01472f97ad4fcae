import type { FamilyMessage } from "@hikaya/contracts";
import { useState } from "react";
import { formatDay } from "../../components/keepsake-book.tsx";
import { useRequireUser } from "../../components/require-user.ts";
import { PageSpinner } from "../../components/spinner.tsx";
import { TitleBar } from "../../components/title-bar.tsx";
import { errorText } from "../../lib/errors.ts";
import { useFamilyMessages } from "../../lib/family-messages.ts";
import { useLanguage, useTranslation } from "../../lib/i18n.ts";
import { MicrophoneError, useRecorder } from "../../lib/recorder.ts";
import { toast } from "../../lib/toast.tsx";
import { useAnswerQuestion, useSetFamilyStatus } from "./api/family-messages.ts";
import "./keepsake.css";

/** Hold to record an answer, hear it, record again or send it (the app's one recorder, lib/recorder.ts). */
function AnswerRecorder({ message }: { message: FamilyMessage }) {
  const { t } = useTranslation("keepsake");
  const recorder = useRecorder();
  const answer = useAnswerQuestion();
  const [take, setTake] = useState<{ blob: Blob; url: string } | null>(null);
  const recording = recorder.state !== "idle";
  const start = () =>
    void recorder.start().catch((error: unknown) => {
      toast.error(
        error instanceof MicrophoneError && error.reason === "unsupported" ? t("family.notSupported") : t("family.micDenied"),
      );
    });
  const stop = () =>
    void recorder.stop().then((r) => {
      if (r) setTake({ blob: r.blob, url: URL.createObjectURL(r.blob) });
    });
  const again = () => {
    if (take) URL.revokeObjectURL(take.url);
    setTake(null);
  };
  const send = () => {
    if (!take) return;
    answer.mutate(
      { id: message.id, blob: take.blob },
      {
        onSuccess: () => {
          toast.success(
            message.wantsReply ? `${t("family.sent")} ${t("family.told", { name: message.name })}` : t("family.sent"),
          );
          again();
        },
        onError: (error) => toast.error(errorText(error)),
      },
    );
  };
  if (take)
    return (
      <div className="family-answer">
        <audio src={take.url} controls aria-label={t("family.yourAnswer")} />
        <div className="family-actions">
          <button
            type="button"
            className="keepsake-button"
            onClick={send}
            disabled={answer.isPending}
            aria-busy={answer.isPending}
          >
            {t("family.send")}
          </button>
          <button type="button" className="keepsake-button keepsake-button--quiet" onClick={again} disabled={answer.isPending}>
            {t("family.again")}
          </button>
        </div>
      </div>
    );
  return (
    <button
      type="button"
      className={`keepsake-button family-hold${recording ? " family-hold--on" : ""}`}
      aria-pressed={recording}
      onPointerDown={(e) => {
        if (e.button !== 0) return;
        e.currentTarget.setPointerCapture?.(e.pointerId);
        start();
      }}
      onPointerUp={stop}
      onPointerCancel={stop}
      onKeyDown={(e) => {
        if ((e.key === " " || e.key === "Enter") && !e.repeat) {
          e.preventDefault();
          start();
        }
      }}
      onKeyUp={(e) => {
        if (e.key === " " || e.key === "Enter") {
          e.preventDefault();
          stop();
        }
      }}
      onContextMenu={(e) => e.preventDefault()}
    >
      {recording ? t("family.recording") : t("family.hold")}
    </button>
  );
}

function MessageCard({ message }: { message: FamilyMessage }) {
  const { t } = useTranslation("keepsake");
  const language = useLanguage();
  const status = useSetFamilyStatus();
  const set = (next: "shown" | "hidden") =>
    status.mutate({ id: message.id, status: next }, { onError: (error) => toast.error(errorText(error)) });
  const question = message.kind === "question";
  return (
    <li className={`family-card family-card--${message.status}`} aria-labelledby={`family-${message.id}`}>
      <p className="family-card__head">
        <span className="family-card__kind">{question ? t("family.question") : t("family.reply")}</span>
        <span className="family-card__status">{t(`family.status.${message.status}`)}</span>
      </p>
      <h2 id={`family-${message.id}`} className="family-card__name">
        {t("family.from", { name: message.name, date: formatDay(message.createdAt, language) })}
      </h2>
      {message.text && <p className="family-card__text">{message.text}</p>}
      {message.audio && (
        <audio src={message.audio} controls preload="none" aria-label={t("family.play", { name: message.name })} />
      )}
      {message.answerAudio && (
        <div className="family-answer">
          <p className="family-card__kind">{t("family.yourAnswer")}</p>
          <audio src={message.answerAudio} controls preload="none" aria-label={t("family.yourAnswer")} />
        </div>
      )}
      <div className="family-actions">
        {/* A question goes in the book with its answer; a reply goes in when shown. */}
        {!question && message.status !== "shown" && (
          <button type="button" className="keepsake-button" onClick={() => set("shown")} disabled={status.isPending}>
            {t("family.show")}
          </button>
        )}
        {message.status !== "hidden" && (
          <button
            type="button"
            className="keepsake-button keepsake-button--quiet"
            onClick={() => set("hidden")}
            disabled={status.isPending}
          >
            {t("family.hide")}
          </button>
        )}
      </div>
      {question && message.status !== "hidden" && (
        <section className="family-answer" aria-label={t("family.answer")}>
          <p className="family-card__kind">{message.answerAudio ? t("family.answerAgain") : t("family.answer")}</p>
          <AnswerRecorder message={message} />
        </section>
      )}
    </li>
  );
}

/** /family: what relatives left through the shared links; the storyteller shows, hides and answers. */
export function FamilyPage() {
  const { t } = useTranslation("keepsake");
  const signedIn = useRequireUser();
  const list = useFamilyMessages(signedIn);
  if (!signedIn) return null;
  return (
    <main className="screen keepsake-page family-page">
      <TitleBar title={t("family.title")} backTo="/" />
      <div className="keepsake-editor">
        <p>{t("family.intro")}</p>
        {list.isError ? (
          <p role="alert">{errorText(list.error)}</p>
        ) : !list.data ? (
          <PageSpinner />
        ) : list.data.messages.length === 0 ? (
          <p>{t("family.empty")}</p>
        ) : (
          <ul className="family-list">
            {list.data.messages.map((m) => (
              <MessageCard key={m.id} message={m} />
            ))}
          </ul>
        )}
      </div>
    </main>
  );
}
