import type { Story } from "@hikaya/contracts";
import { useCallback, useEffect, useMemo, useState } from "react";
import { useRequireUser } from "../../components/require-user.ts";
import { PageSpinner, Spinner } from "../../components/spinner.tsx";
import { TitleBar } from "../../components/title-bar.tsx";
import { ApiError } from "../../lib/api-client.ts";
import { errorText, isRefusedFile } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { useNavigate, useParams } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { dropPending, listPending, type PendingRecording, retryPending, saveRecording } from "./api/recordings.ts";
import { useStories } from "./api/stories.ts";
import { InlineInstruction } from "./instruction-video.tsx";
import { afterRecording, formatSeconds, parseIndex, saveRequiresUpload } from "./journey-rules.ts";
import { ProblemScreen } from "./problem-screen.tsx";
import { useStoryTake } from "./use-recorder.ts";
import "./stories.css";

function MicIcon() {
  return (
    <svg viewBox="0 0 24 24" width="44" height="44" aria-hidden="true">
      <rect x="9" y="3" width="6" height="11" rx="3" fill="currentColor" />
      <path d="M6 11a6 6 0 0 0 12 0M12 17v4M8.5 21h7" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
    </svg>
  );
}

function Recorder({ story, index }: { story: Pick<Story, "id" | "order">; index: number }) {
  const { t } = useTranslation("stories");
  const navigate = useNavigate();
  const [saving, setSaving] = useState(false);
  const [pending, setPending] = useState<PendingRecording | null>(null);
  const pendingUrl = useMemo(() => (pending ? URL.createObjectURL(pending.blob) : null), [pending]);
  useEffect(() => () => (pendingUrl ? URL.revokeObjectURL(pendingUrl) : undefined), [pendingUrl]);
  const uploadRequired = saveRequiresUpload(index);
  const onDenied = useCallback(() => window.alert(t("recording.micDenied")), [t]);
  const onUnsupported = useCallback(() => toast.error(t("recording.notSupported")), [t]);
  const rec = useStoryTake({ onDenied, onUnsupported });

  const refreshPending = useCallback(async () => {
    const all = await listPending();
    setPending(all.find((p) => p.storyId === story.id && p.index === index) ?? null);
  }, [story.id, index]);
  useEffect(() => {
    void refreshPending();
  }, [refreshPending]);

  const done = () => {
    const to = afterRecording(story.id, index);
    if (to === "/") toast.success(t("recording.saved"));
    navigate(to, { replace: true });
  };

  const save = async () => {
    if (!rec.take) {
      toast.error(t("recording.noRecording"));
      return;
    }
    setSaving(true);
    try {
      await saveRecording(story.id, index, rec.take.blob, rec.take.seconds);
      done();
    } catch (error) {
      await refreshPending();
      // Refused for what it is (too long, unreadable): the reason, and the take is not kept to be sent again.
      if (isRefusedFile(error)) {
        toast.error(errorText(error));
        setSaving(false);
        return;
      }
      if (uploadRequired) {
        // The take is kept on the device either way; only a refusal by the server is an error. Without a connection
        // it waits beside the retry button (and the stories list sends it), so the person is told exactly that.
        const offline = !(error instanceof ApiError) || error.code === "network";
        if (offline) toast.info(t("recording.keptWillSend"));
        else toast.error(t("recording.error"));
        setSaving(false);
        return;
      }
      // Below the upload threshold the take need not reach the server now; it stays queued on the device. One
      // message says so: an error beside it told the person two opposite things at once.
      toast.info(t("recording.keptOffline"));
      navigate("/", { replace: true });
    }
  };

  const retry = async () => {
    if (!pending) return;
    setSaving(true);
    try {
      await retryPending(pending);
      setPending(null);
      rec.reset();
      done();
    } catch (error) {
      if (isRefusedFile(error)) setPending(null);
      toast.error(isRefusedFile(error) ? errorText(error) : t("recording.error"));
      setSaving(false);
    }
  };

  const recording = rec.state === "recording" || rec.state === "starting";
  const holdProps = {
    onPointerDown: (e: React.PointerEvent<HTMLButtonElement>) => {
      if (e.button !== 0) return;
      e.currentTarget.setPointerCapture?.(e.pointerId);
      void rec.start();
    },
    onPointerUp: () => void rec.stop(),
    onPointerCancel: () => void rec.stop(),
    onKeyDown: (e: React.KeyboardEvent) => {
      if ((e.key === " " || e.key === "Enter") && !e.repeat) {
        e.preventDefault();
        void rec.start();
      }
    },
    onKeyUp: (e: React.KeyboardEvent) => {
      if (e.key === " " || e.key === "Enter") {
        e.preventDefault();
        void rec.stop();
      }
    },
    onContextMenu: (e: React.MouseEvent) => e.preventDefault(),
  };

  return (
    <div className="screen__body recorder">
      <InlineInstruction location={rec.idleHint ? "Record thoughts, 2nd chance" : "Record Thoughts"} />
      {pending && !rec.take && (
        <div className="notice" role="status">
          <span>{t("recording.pending")}</span>
          <div className="notice__buttons">
            <button
              type="button"
              className="button button--primary notice__action"
              disabled={saving}
              onClick={() => void retry()}
            >
              {t("recording.retry")}
            </button>
            <audio
              src={URL.createObjectURL(pending.blob)}
              controls
              aria-label={t("recording.play")}
              className="recorder__playback"
            />
            <button type="button" className="link-button" onClick={() => void dropPending(pending.key).then(refreshPending)}>
              {t("recording.delete")}
            </button>
          </div>
        </div>
      )}
      <p className="recorder__prompt">{t("recording.prompt")}</p>
      {rec.state !== "recorded" ? (
        <div className="recorder__mic-area">
          <button
            type="button"
            className={`mic${recording ? " mic--recording" : ""}${rec.idleHint && rec.state === "idle" ? " mic--bounce" : ""}`}
            aria-label={t("recording.hold")}
            aria-describedby="hold-hint"
            aria-pressed={recording}
            {...holdProps}
          >
            <MicIcon />
          </button>
          <span className="recorder__timer ltr" role="timer" aria-label={t("recording.timer")} aria-live="off">
            {formatSeconds(rec.seconds)}
          </span>
          <p id="hold-hint" className="recorder__hint" aria-live="polite">
            {recording ? t("recording.recording") : t("recording.holdHint")}
            {!recording && <span className="only-fine-pointer"> {t("recording.keyHint")}</span>}
          </p>
        </div>
      ) : (
        rec.take && (
          <section className="recorder__take" aria-labelledby="take-title">
            <h2 id="take-title">{t("recording.recorded")}</h2>
            <span className="recorder__timer ltr">{formatSeconds(rec.seconds)}</span>
            <audio src={rec.take.url} controls aria-label={t("recording.play")} className="recorder__playback" />
            <button type="button" className="button" onClick={rec.reset} disabled={saving}>
              {t("recording.delete")}
            </button>
          </section>
        )
      )}
      <button
        type="button"
        className="button button--primary button--block recorder__save"
        disabled={saving}
        aria-busy={saving}
        onClick={() => void save()}
      >
        {saving ? <Spinner size={22} /> : uploadRequired ? t("recording.saveStory") : t("recording.goToStories")}
      </button>
    </div>
  );
}

/** /start-recording/{id}/{index}: press and hold to record thoughts about the story, then save. */
export function StartRecordingPage() {
  const { id = "", index: rawIndex } = useParams();
  const { t } = useTranslation("stories");
  const signedIn = useRequireUser();
  const stories = useStories();
  if (!signedIn) return null;
  if (stories.isPending) return <PageSpinner />;
  const story = stories.data?.find((s) => s.id === id || s._id === id);
  if (stories.data && !story) return <ProblemScreen title={t("story.notFoundTitle")} body={t("story.notFoundBody")} />;
  if (story?.watchStatus === "Locked") return <ProblemScreen title={t("story.lockedTitle")} body={t("story.lockedBody")} />;
  const index = parseIndex(
    rawIndex,
    stories.data?.map((s) => s.order),
  );
  if (index === null) return <ProblemScreen title={t("recording.badIndexTitle")} body={t("questions.badIndexBody")} />;
  return (
    <main className="screen journey">
      <TitleBar title={t("recording.title")} backTo="/" />
      <Recorder story={story ?? { id, order: index }} index={index} />
    </main>
  );
}
