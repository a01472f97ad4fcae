import type { Story } from "@hikaya/contracts";
import { useState } from "react";
import { useViewingMode } from "../../lib/account.ts";
import { formatBytes } from "../../lib/format.ts";
import { currentLanguage, useTranslation } from "../../lib/i18n.ts";
import { Link } from "../../lib/router.tsx";
import { useStreamSize } from "../../lib/stream-source.ts";
import { thumbnailOf } from "./api/stories-list.ts";
import { cardLook } from "./journey-rules.ts";
import { OfflineDownload } from "./offline/offline-download.tsx";

export function storyTitle(story: Story): string {
  return currentLanguage() === "ar" && story.titleB ? story.titleB : story.title;
}

export function storySubtitle(story: Story): string {
  return currentLanguage() === "ar" && story.subtitleB ? story.subtitleB : story.subtitle;
}

function Badge({ look }: { look: "watched" | "locked" | "other" }) {
  const { t } = useTranslation("stories");
  const label = look === "watched" ? t("home.watched") : look === "locked" ? t("home.locked") : t("home.notStarted");
  const path =
    look === "watched" ? "M6 12.5l4 4 8-9" : look === "locked" ? "M7 11V8a5 5 0 0 1 10 0v3M6 11h12v9H6z" : "M9 7v10M15 7v10";
  return (
    <span className={`story-card__badge story-card__badge--${look}`} role="img" aria-label={label}>
      <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true">
        <path d={path} fill="none" stroke="currentColor" strokeWidth="2.4" strokeLinecap="round" strokeLinejoin="round" />
      </svg>
    </span>
  );
}

/** Media play points right in both directions, as on every player. */
function PlayIcon() {
  return (
    <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
      <path d="M8 5.5v13l11-6.5z" fill="currentColor" />
    </svg>
  );
}

/** What the story costs in the person's viewing mode ("Size: 4.2 MB", issue 38), once its video has a stream. */
function StorySize({ src }: { src: string }) {
  const { t, i18n } = useTranslation("stories");
  const bytes = useStreamSize(src, useViewingMode());
  if (bytes === null) return null;
  return (
    <p className="story-card__size" data-testid="story-card-size">
      {t("story.size", { size: formatBytes(bytes, i18n.language) })}
    </p>
  );
}

/**
 * A story card whose look follows watchStatus exactly as spec section 4 says. The first card's thumbnail is the
 * home's largest paint: `priority` loads it at once and first (not lazily, which waits for layout).
 */
export function StoryCard({ story, priority = false }: { story: Story; priority?: boolean }) {
  const { t } = useTranslation("stories");
  const look = cardLook(story.watchStatus);
  const title = storyTitle(story);
  const showSubtitle = look === "active" || look === "watched";
  const thumbnail = thumbnailOf(story);
  // A story saved without a thumbnail, or one whose file is gone, shows the placeholder instead of a broken image.
  const [failed, setFailed] = useState<string | null>(null);
  const playLabel = t("home.play", { title });

  return (
    <li className={`story-card story-card--${look}`} data-status={story.watchStatus ?? "none"}>
      <div className="story-card__thumb">
        {thumbnail && failed !== thumbnail ? (
          /* fetchPriority and loading before src: the request starts with them. */
          <img
            fetchPriority={priority ? "high" : undefined}
            loading={priority ? undefined : "lazy"}
            decoding="async"
            src={thumbnail}
            alt=""
            width={88}
            height={50}
            onError={() => setFailed(thumbnail)}
          />
        ) : (
          <span className="story-card__placeholder" data-testid="thumbnail-placeholder">
            <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
              <path
                d="M4 6h16v12H4zM4 15l4.5-4.5 3.5 3.5 2.5-2.5L20 17"
                fill="none"
                stroke="currentColor"
                strokeWidth="1.8"
                strokeLinejoin="round"
              />
            </svg>
          </span>
        )}
        {look !== "active" && <Badge look={look} />}
      </div>
      <div className="story-card__text">
        <h2 className="story-card__title">{title}</h2>
        {showSubtitle && <p className="story-card__subtitle">{storySubtitle(story)}</p>}
        {/* Only a story the person may watch has its video's address (a locked one has none). */}
        {look !== "locked" && story.url && <StorySize src={story.url} />}
      </div>
      {look === "locked" ? (
        <span
          className="story-card__play story-card__play--disabled"
          role="img"
          aria-label={`${playLabel} (${t("home.locked")})`}
        >
          <PlayIcon />
        </span>
      ) : (
        <Link className="story-card__play" to={`/story/${story.id}`} aria-label={playLabel}>
          <PlayIcon />
        </Link>
      )}
      {/* Downloads are for the next story (issue 38); a watched one's copy can still be removed. */}
      {(look === "active" || look === "watched") && <OfflineDownload story={story} canDownload={look === "active"} />}
    </li>
  );
}
