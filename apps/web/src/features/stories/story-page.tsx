import type { Story } from "@hikaya/contracts";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useRequireUser } from "../../components/require-user.ts";
import { PageSpinner } from "../../components/spinner.tsx";
import { TitleBar } from "../../components/title-bar.tsx";
import { useViewingMode } from "../../lib/account.ts";
import { track } from "../../lib/analytics.ts";
import { ApiError } from "../../lib/api-client.ts";
import { errorText } from "../../lib/errors.ts";
import { formatBytes } from "../../lib/format.ts";
import { currentLanguage, useTranslation } from "../../lib/i18n.ts";
import { Link, useNavigate, useParams } from "../../lib/router.tsx";
import { getUserId } from "../../lib/session.ts";
import { modeSize, rememberMediaStream, useStreamSource } from "../../lib/stream-source.ts";
import { toast } from "../../lib/toast.tsx";
import { questionsQuery } from "./api/questions.ts";
import { useStory, useWatchStory } from "./api/stories.ts";
import { CaptionSwitch, CaptionTracks, useCaptions } from "./captions.tsx";
import { type Embed, embedFor, listenForEmbedEnd } from "./embed.ts";
import { isNetworkFailure } from "./offline/offline-copy.ts";
import { useWatchedOutbox } from "./offline/use-watched-outbox.ts";
import { queueWatched } from "./offline/watched-outbox.ts";
import { PlaybackSpeed } from "./playback-speed.tsx";
import { ProblemScreen } from "./problem-screen.tsx";
import { storySubtitle, storyTitle } from "./story-card.tsx";
import { useFreshMediaLinks } from "./use-fresh-media-links.ts";
import { usePlaybackPosition } from "./use-playback-position.ts";
import "./stories.css";

/** Seconds buffered ahead before the poster is fetched. */
const POSTER_AFTER_SECONDS = 4;

function NativePlayer({
  src,
  story,
  label,
  onEnded,
  media,
}: {
  src: string;
  story: Story;
  label: string;
  onEnded: () => void;
  media: ReturnType<typeof useFreshMediaLinks>;
}) {
  const { t, i18n } = useTranslation("stories");
  const video = useRef<HTMLVideoElement>(null);
  const [muted, setMuted] = useState(false);
  // The source is chosen once the server said whether an HLS version exists (lib/stream-source.ts), in the
  // person's viewing mode (issue 38).
  const mode = useViewingMode();
  const { stream, attached } = useStreamSource(video, src, mode);
  // The poster waits until a few seconds are buffered: on a weak link it would share the bandwidth with the first
  // segments (a 30 KB poster at 400 kbit/s made the sound alone stall once). The first frame covers it anyway; with
  // the sound alone it is the picture from then on.
  const [posterDue, setPosterDue] = useState(false);
  const checkBuffer = (el: HTMLVideoElement) => {
    if (posterDue || el.buffered.length === 0) return;
    const end = el.buffered.end(el.buffered.length - 1);
    if (end - el.currentTime >= POSTER_AFTER_SECONDS || end >= el.duration - 0.1) setPosterDue(true);
  };
  usePlaybackPosition(video, story.id, story.positionSeconds ?? 0, attached);
  const bytes = mode && stream?.sizes ? modeSize(mode, stream.sizes) : null;
  const captions = stream?.captions ?? [];
  const { choice, setChoice } = useCaptions(video, captions);

  useEffect(() => {
    const el = video.current;
    if (!el || !attached) return;
    el.play().catch(() => {
      // The browser blocked autoplay with sound: play muted and offer sound.
      el.muted = true;
      setMuted(true);
      void el.play().catch(() => undefined);
    });
  }, [attached]);

  return (
    <div className="player">
      <video
        ref={video}
        className="player__video"
        poster={(posterDue && stream?.poster) || undefined}
        onProgress={(e) => checkBuffer(e.currentTarget)}
        onTimeUpdate={(e) => checkBuffer(e.currentTarget)}
        playsInline
        autoPlay
        controls
        preload="auto"
        controlsList="nodownload"
        aria-label={label}
        onEnded={onEnded}
        data-captions={choice}
        {...media}
      >
        <CaptionTracks captions={captions} choice={choice} />
      </video>
      {muted && (
        <button
          type="button"
          className="button button--primary player__unmute"
          onClick={() => {
            if (!video.current) return;
            video.current.muted = false;
            setMuted(false);
          }}
        >
          {t("story.unmute")}
        </button>
      )}
      <CaptionSwitch captions={captions} choice={choice} onChoose={setChoice} />
      <PlaybackSpeed video={video} attached={attached} />
      {bytes !== null && (
        <p className="player__size" data-testid="story-size">
          {t("story.size", { size: formatBytes(bytes, i18n.language) })}
        </p>
      )}
    </div>
  );
}

function EmbeddedPlayer({
  embed,
  label,
  onEnded,
}: {
  embed: Exclude<Embed, { kind: "file" }>;
  label: string;
  onEnded: () => void;
}) {
  const { t } = useTranslation("stories");
  const frame = useRef<HTMLIFrameElement>(null);
  const ended = useRef(onEnded);
  ended.current = onEnded;
  useEffect(() => {
    if (!frame.current) return;
    return listenForEmbedEnd(frame.current, embed, () => ended.current());
  }, [embed]);
  return (
    <div className="player">
      <div className="player__frame">
        <iframe
          ref={frame}
          src={embed.src}
          title={label}
          allow="autoplay; fullscreen; picture-in-picture; encrypted-media"
          allowFullScreen
          referrerPolicy="strict-origin-when-cross-origin"
        />
      </div>
      <button type="button" className="button player__done" onClick={onEnded}>
        {t("story.continue")}
      </button>
    </div>
  );
}

/**
 * /story/{id}: the story plays inline; at its end the story is recorded as watched (and the
 * video_watched event sent), then the person goes on to the story's questions, or back to the list
 * when the story has none.
 */
export function StoryPage() {
  const { id = "" } = useParams();
  const { t } = useTranslation("stories");
  const { t: tc } = useTranslation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const signedIn = useRequireUser();
  const story = useStory(id);
  // The video's signed link expires; a failed one fetches the story again (use-fresh-media-links.ts).
  const media = useFreshMediaLinks(["stories", id]);
  const watch = useWatchStory();
  useWatchedOutbox();
  const [failed, setFailed] = useState(false);
  const finishing = useRef(false);

  const finish = async (s: Story) => {
    if (finishing.current) return;
    finishing.current = true;
    setFailed(false);
    let online = true;
    try {
      await watch.mutateAsync(s.id);
    } catch (error) {
      if (isNetworkFailure(error)) {
        // No network (a downloaded story watched offline, issue 38): kept on the device and sent when it returns.
        queueWatched(s.id);
        online = false;
        toast.info(t("story.watchedLater"));
      } else {
        finishing.current = false;
        setFailed(true);
        toast.error(error instanceof ApiError ? errorText(error) : t("story.saveError"));
        return;
      }
    }
    if (online) track("video_watched", { videoID: s.id, videoOrder: s.order, user: getUserId() });
    const questions = await client.fetchQuery(questionsQuery(s.id, currentLanguage())).catch(() => []);
    navigate(questions.length > 0 ? `/questions/${s.id}/${s.order}` : "/", { replace: true });
  };

  if (!signedIn) return null;
  if (story.isPending) {
    return (
      <main className="screen journey">
        <TitleBar title={t("story.title")} backTo="/" />
        <PageSpinner />
      </main>
    );
  }
  if (story.isError || !story.data) {
    const error = story.error;
    const locked =
      error instanceof ApiError && (error.code === "story_locked" || error.code === "story_out_of_order" || error.status === 403);
    const missing = error instanceof ApiError && (error.status === 404 || error.status === 400);
    if (locked) return <ProblemScreen title={t("story.lockedTitle")} body={t("story.lockedBody")} />;
    if (missing) return <ProblemScreen title={t("story.notFoundTitle")} body={t("story.notFoundBody")} />;
    return <ProblemScreen title={t("story.title")} body={errorText(error)} />;
  }
  const s = story.data;
  if (s.watchStatus === "Locked" || !s.url) {
    return <ProblemScreen title={t("story.lockedTitle")} body={t("story.lockedBody")} />;
  }
  const title = storyTitle(s);
  const embed = embedFor(s.url, window.location.origin);
  const label = t("story.videoLabel", { title });
  if (embed.kind === "file" && s.stream) rememberMediaStream(embed.src, s.stream);

  return (
    <main className="screen journey story-screen">
      <TitleBar title={title} backTo="/" />
      <div className="story-screen__body">
        {embed.kind === "file" ? (
          <NativePlayer src={embed.src} story={s} label={label} media={media} onEnded={() => void finish(s)} />
        ) : (
          <EmbeddedPlayer embed={embed} label={label} onEnded={() => void finish(s)} />
        )}
        <div className="story-screen__info">
          <h2 className="story-screen__title">{title}</h2>
          {storySubtitle(s) && <p className="story-screen__subtitle">{storySubtitle(s)}</p>}
        </div>
        {watch.isPending && <p className="story-screen__status">{tc("loading")}</p>}
        {failed && (
          <button type="button" className="button button--primary" onClick={() => void finish(s)}>
            {tc("actions.retry")}
          </button>
        )}
        <Link to="/" className="visually-hidden">
          {t("story.backToStories")}
        </Link>
      </div>
    </main>
  );
}
