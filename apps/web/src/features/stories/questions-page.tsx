import type { Story } from "@hikaya/contracts";
import { useEffect, useMemo, useRef, useState } from "react";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { LanguageSwitch } from "../../components/language-switch.tsx";
import { useRequireUser } from "../../components/require-user.ts";
import { PageSpinner } from "../../components/spinner.tsx";
import { VoiceWords } from "../../components/voice-words.tsx";
import { useViewingMode } from "../../lib/account.ts";
import { errorText } from "../../lib/errors.ts";
import { currentLanguage, useArabicFirst, useTranslation } from "../../lib/i18n.ts";
import { useMe } from "../../lib/me.ts";
import { Link, useNavigate, useParams } from "../../lib/router.tsx";
import { useStreamSource } from "../../lib/stream-source.ts";
import { type Answer, useAnswers, useQuestions } from "./api/questions.ts";
import { useStories } from "./api/stories.ts";
import { afterQuestions, parseIndex } from "./journey-rules.ts";
import { useWatchedOutbox } from "./offline/use-watched-outbox.ts";
import { ProblemScreen } from "./problem-screen.tsx";
import { storyTitle } from "./story-card.tsx";
import { useFreshMediaLinks } from "./use-fresh-media-links.ts";
import "./stories.css";

/** Plays a media element when it appears; a blocked autoplay leaves a visible play button. */
function useAutoplay(ref: React.RefObject<HTMLMediaElement | null>, key: string | null) {
  const [blocked, setBlocked] = useState(false);
  // Runs again for a new key (the media to start): the element may be reused, so the key is read to say so.
  useEffect(() => {
    void key;
    setBlocked(false);
    const el = ref.current;
    // null: no source yet (a video waits for the server to say whether it has an HLS version).
    if (!el || key === null) return;
    el.play().catch(() => setBlocked(true));
  }, [ref, key]);
  return [
    blocked,
    () =>
      ref.current?.play().then(
        () => setBlocked(false),
        () => undefined,
      ),
  ] as const;
}

function characterName(answer: Answer): string {
  const c = answer.character;
  return currentLanguage() === "ar" && c.nameOfFamilyMemberAr ? c.nameOfFamilyMemberAr : c.nameOfFamilyMember;
}

type MediaHandlers = ReturnType<typeof useFreshMediaLinks>;

function AnswerRow({
  answer,
  state,
  onEnded,
  media,
}: {
  answer: Answer;
  state: "waiting" | "playing" | "played";
  onEnded: () => void;
  media: MediaHandlers;
}) {
  const { t } = useTranslation("stories");
  const audio = useRef<HTMLAudioElement>(null);
  const [blocked, play] = useAutoplay(audio, state === "playing" ? answer._id : "");
  const name = characterName(answer);
  return (
    <li className={`answer answer--${state}`} aria-current={state === "playing" ? "step" : undefined}>
      {answer.character.thumbnail ? (
        <img className="answer__thumb" src={answer.character.thumbnail} alt="" width={48} height={48} />
      ) : (
        <span className="answer__thumb answer__thumb--empty" aria-hidden="true">
          {name.slice(0, 1)}
        </span>
      )}
      <div className="answer__text">
        <span className="answer__name">{name}</span>
        <span className="answer__state">{t(`questions.${state}`)}</span>
      </div>
      {state === "playing" && (
        <>
          <audio
            ref={audio}
            src={answer.audio}
            autoPlay
            controls
            aria-label={t("questions.answerBy", { name })}
            onEnded={onEnded}
            {...media}
          />
          {blocked && (
            <button type="button" className="button button--primary answer__play" onClick={play}>
              {t("questions.tapToPlay")}
            </button>
          )}
        </>
      )}
      <VoiceWords className="answer__words" transcript={answer.transcript} name={name} />
    </li>
  );
}

function QuestionVideo({
  src,
  label,
  onEnded,
  media,
}: {
  src: string;
  label: string;
  onEnded: () => void;
  media: MediaHandlers;
}) {
  const { t } = useTranslation("stories");
  const video = useRef<HTMLVideoElement>(null);
  // The HLS version when there is one (lib/stream-source.ts), in the person's viewing mode (issue 38); playing
  // starts once a source is attached.
  const { attached } = useStreamSource(video, src, useViewingMode());
  const [blocked, play] = useAutoplay(video, attached ? src : null);
  return (
    <div className="player">
      <video
        ref={video}
        className="player__video"
        playsInline
        autoPlay
        controls
        aria-label={label}
        onEnded={onEnded}
        {...media}
      />
      {blocked && (
        <button type="button" className="button button--primary player__unmute" onClick={play}>
          {t("questions.tapToPlay")}
        </button>
      )}
    </div>
  );
}

/** Phase of the flow: the question's media, then answer n, in order. */
type Phase = { question: number; answer: number | null };

function QuestionFlow({ story, index }: { story: Story; index: number }) {
  const { t } = useTranslation("stories");
  const { t: tc } = useTranslation();
  const navigate = useNavigate();
  const questions = useQuestions(story.id);
  const answers = useAnswers(story.id);
  // Signed media links expire; a failed one fetches the questions and answers again (use-fresh-media-links.ts).
  const media = useFreshMediaLinks(["stories", story.id]);
  const [phase, setPhase] = useState<Phase>({ question: 0, answer: null });
  const [confirming, setConfirming] = useState(false);

  const byQuestion = useMemo(() => {
    const map = new Map<string, Answer[]>();
    for (const a of answers.data ?? []) map.set(a.question, [...(map.get(a.question) ?? []), a]);
    return map;
  }, [answers.data]);

  const list = questions.data ?? [];
  const current = list[phase.question];
  const currentAnswers = current ? (byQuestion.get(current._id) ?? []) : [];
  const finish = () => navigate(afterQuestions(story.id, index), { replace: true });

  const advance = () => {
    const next = phase.answer === null ? 0 : phase.answer + 1;
    if (next < currentAnswers.length) return setPhase({ question: phase.question, answer: next });
    if (phase.question + 1 < list.length) return setPhase({ question: phase.question + 1, answer: null });
    finish();
  };

  const header = (
    <header className="title-bar">
      <button type="button" className="round-button" aria-label={tc("actions.back")} onClick={() => setConfirming(true)}>
        <svg viewBox="0 0 24 24" width="22" height="22" className="icon-directional" aria-hidden="true">
          <path
            d="M15 5l-7 7 7 7"
            fill="none"
            stroke="currentColor"
            strokeWidth="2.4"
            strokeLinecap="round"
            strokeLinejoin="round"
          />
        </svg>
      </button>
      <h1 className="title-bar__title">{storyTitle(story)}</h1>
      <LanguageSwitch />
    </header>
  );

  let body: React.ReactNode;
  if (questions.isPending || answers.isPending) body = <PageSpinner />;
  else if (questions.isError) body = <p role="alert">{errorText(questions.error)}</p>;
  else if (!current) {
    body = (
      <div className="screen--center questions__none">
        <p>{t("questions.none")}</p>
        <button type="button" className="button button--primary" onClick={finish}>
          {t("questions.continue")}
        </button>
      </div>
    );
  } else {
    body = (
      <>
        <p className="questions__progress" aria-live="polite">
          {t("questions.questionOf", { current: phase.question + 1, total: list.length })}
        </p>
        <QuestionVideo
          key={current._id}
          src={current.url}
          label={t("questions.questionVideo", { current: phase.question + 1 })}
          media={media}
          onEnded={() => {
            if (phase.answer === null) advance();
          }}
        />
        <VoiceWords
          className="questions__words"
          transcript={current.transcript}
          name={t("questions.questionVideo", { current: phase.question + 1 })}
        />
        {currentAnswers.length > 0 && (
          <section className="answers" aria-labelledby="answers-heading">
            <h2 id="answers-heading" className="answers__heading">
              {t("questions.answers")}
            </h2>
            <ol className="answers__list">
              {currentAnswers.map((a, i) => (
                <AnswerRow
                  key={a._id}
                  answer={a}
                  state={phase.answer === null || i > phase.answer ? "waiting" : i === phase.answer ? "playing" : "played"}
                  onEnded={advance}
                  media={media}
                />
              ))}
            </ol>
          </section>
        )}
        <button type="button" className="button questions__next" onClick={advance}>
          {t("questions.next")}
        </button>
      </>
    );
  }

  return (
    <main className="screen journey questions">
      {header}
      <div className="screen__body">
        {body}
        <Link className="questions__message-center" to="/user-home">
          {t("questions.messageCenter")}
        </Link>
      </div>
      <ConfirmDialog
        open={confirming}
        message={t("questions.confirmBack")}
        stayLabel={t("questions.stay")}
        leaveLabel={t("questions.leave")}
        onStay={() => setConfirming(false)}
        onLeave={() => navigate("/")}
      />
    </main>
  );
}

/** Checks the story and index of the URL, then runs the flow; bad input gets a message and a way back. */
function QuestionsScreen({ id, rawIndex }: { id: string; rawIndex: string | undefined }) {
  const { t } = useTranslation("stories");
  const stories = useStories();
  useWatchedOutbox();
  if (stories.isPending) return <PageSpinner />;
  if (stories.isError) return <ProblemScreen title={t("questions.title")} body={errorText(stories.error)} />;
  const story = stories.data.find((s) => s.id === id || s._id === id);
  if (!story) return <ProblemScreen title={t("story.notFoundTitle")} body={t("story.notFoundBody")} />;
  if (story.watchStatus === "Locked") return <ProblemScreen title={t("story.lockedTitle")} body={t("story.lockedBody")} />;
  const index = parseIndex(
    rawIndex,
    stories.data.map((s) => s.order),
  );
  if (index === null) return <ProblemScreen title={t("questions.badIndexTitle")} body={t("questions.badIndexBody")} />;
  return <QuestionFlow key={`${story.id}/${index}`} story={story} index={index} />;
}

export function QuestionsPage() {
  const { id = "", index } = useParams();
  const signedIn = useRequireUser();
  if (!signedIn) return null;
  return <QuestionsScreen id={id} rawIndex={index} />;
}

/**
 * /arabic-questions (spec section 2): the same screen in Arabic. Without a story in the URL it opens
 * the questions of the furthest story watched.
 */
export function ArabicQuestionsPage() {
  const { id, index } = useParams();
  const { t } = useTranslation("stories");
  const signedIn = useRequireUser();
  const me = useMe();
  const stories = useStories();
  useArabicFirst();
  if (!signedIn) return null;
  if (id) return <QuestionsScreen id={id} rawIndex={index} />;
  if (me.isPending || stories.isPending) return <PageSpinner />;
  const last = me.data?.lastWatchedStoryId ?? 0;
  const story = stories.data?.find((s) => s.order === last);
  if (!story) return <ProblemScreen title={t("questions.title")} body={t("questions.noStoryYet")} />;
  return <QuestionsScreen id={story.id} rawIndex={String(story.order)} />;
}
