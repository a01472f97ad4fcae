import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { AppLayout, useShareSite } from "../../components/app-chrome.tsx";
import { PageSpinner } from "../../components/spinner.tsx";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";
import { listPending, type PendingRecording, retryPending } from "./api/recordings.ts";
import { storiesKey, useStories } from "./api/stories.ts";
import { useWatchedOutbox } from "./offline/use-watched-outbox.ts";
import { StoryCard } from "./story-card.tsx";
import "./stories.css";

/** Recordings whose upload failed earlier stay on the device until they are sent (issue 6). */
function PendingUploads() {
  const { t } = useTranslation("stories");
  const [pending, setPending] = useState<PendingRecording[]>([]);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    void listPending().then(setPending);
  }, []);
  if (pending.length === 0) return null;
  const retry = async () => {
    setBusy(true);
    try {
      for (const item of pending) await retryPending(item);
      toast.success(t("recording.saved"));
    } catch (error) {
      toast.error(`${t("recording.error")}: ${errorText(error)}`);
    } finally {
      setPending(await listPending());
      setBusy(false);
    }
  };
  return (
    <div className="notice" role="status">
      <span>{t("home.pendingUpload", { count: pending.length })}</span>
      <button type="button" className="button button--primary notice__action" disabled={busy} onClick={() => void retry()}>
        {t("home.uploadNow")}
      </button>
    </div>
  );
}

export function HomePage() {
  const { t } = useTranslation("stories");
  const { t: tc } = useTranslation();
  const stories = useStories();
  const share = useShareSite();
  const client = useQueryClient();
  useWatchedOutbox();

  return (
    <main className={`stories-home journey${stories.isPending ? " stories-home--loading" : ""}`}>
      <div className="stories-home__head">
        <h1 className="stories-home__header">{t("home.header")}</h1>
        <button type="button" className="button stories-home__share" onClick={() => void share()}>
          <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
            <path
              d="M12 15V3M7 8l5-5 5 5M5 13v7h14v-7"
              fill="none"
              stroke="currentColor"
              strokeWidth="2"
              strokeLinecap="round"
              strokeLinejoin="round"
            />
          </svg>
          {t("home.share")}
        </button>
      </div>
      <PendingUploads />
      {stories.isPending ? (
        <PageSpinner />
      ) : stories.isError ? (
        <div className="empty-state" role="alert">
          <p>{t("home.loadError")}</p>
          <p className="empty-state__detail">{errorText(stories.error)}</p>
          <button type="button" className="button" onClick={() => void client.invalidateQueries({ queryKey: storiesKey })}>
            {tc("actions.retry")}
          </button>
        </div>
      ) : stories.data.length === 0 ? (
        <p className="empty-state">{t("home.empty")}</p>
      ) : (
        <ul className="story-list">
          {stories.data.map((story, index) => (
            <StoryCard key={story.id} story={story} priority={index === 0} />
          ))}
        </ul>
      )}
    </main>
  );
}

export function HomeScreen() {
  return (
    <AppLayout>
      <HomePage />
    </AppLayout>
  );
}
