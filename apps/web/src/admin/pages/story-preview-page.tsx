import type { AdminStory, Language, Story } from "@hikaya/contracts";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { StoryCard } from "../../features/stories/story-card.tsx";
import { currentLanguage, loadNamespaces, useTranslation } from "../../lib/i18n.ts";
import { Link, useParams } from "../../lib/router.tsx";
import { adminQueries } from "../api.ts";
import { MediaPreview } from "../components/media-preview.tsx";
import { PageHeader, QueryView } from "../components/page.tsx";
import { thumbnailOf } from "../logic.ts";
import "../../features/stories/stories.css";

/** The story as the family's list in `language` would carry it when it is their next one (spec section 4: Active). */
function asFamilySees(story: AdminStory, language: Language): Story {
  return {
    id: story.id,
    _id: story.id,
    order: story.order,
    url: story.videoUrl,
    title: story.titleEn,
    subtitle: story.subtitleEn,
    titleB: story.titleAr,
    subtitleB: story.subtitleAr,
    thumbnailUrl: thumbnailOf(story, language),
    durationSeconds: null,
    watchStatus: "Active",
  };
}

/**
 * A read-only preview of a story, draft or published, as a family member sees it: their story card (the user
 * app's own component), the video, then each question with the family members' answers in order.
 */
export function StoryPreviewPage() {
  const { id = "" } = useParams();
  const { t } = useTranslation("admin");
  const story = useQuery(adminQueries.story(id));
  const questions = useQuery(adminQueries.questions(id));
  const language = currentLanguage();
  const ar = language === "ar";
  // The family's card reads its strings (its Play label) from the user app's `stories` namespace, which the console
  // does not load by itself: without it the card said "home.play".
  const [cardStrings, setCardStrings] = useState(false);
  useEffect(() => {
    let live = true;
    void loadNamespaces("stories").then(() => live && setCardStrings(true));
    return () => {
      live = false;
    };
  }, []);
  return (
    <>
      <Link to={`/admin/stories/${id}`} className="admin-back">
        <span className="icon-directional" aria-hidden="true">
          ←
        </span>{" "}
        {t("preview.backToEditor")}
      </Link>
      <QueryView query={story}>
        {(s) => (
          <>
            <PageHeader title={t("preview.title")} subtitle={s.published ? t("story.statusPublished") : t("story.statusDraft")} />
            <p className="admin-hint">{t("preview.intro")}</p>
            <div className="admin-card admin-story-preview" data-testid="story-preview">
              <ul className="story-list">{cardStrings && <StoryCard story={asFamilySees(s, language)} />}</ul>
              <h2>{ar ? s.titleAr : s.titleEn}</h2>
              <MediaPreview src={s.videoUrl} kind="video" label={ar ? s.titleAr : s.titleEn} />
              <h3>{t("questions.title")}</h3>
              <QueryView query={questions}>
                {(list) =>
                  list.length === 0 ? (
                    <p className="admin-muted">{t("questions.empty")}</p>
                  ) : (
                    <ol className="admin-questions">
                      {list.map((q) => (
                        <li key={q.id} className="admin-question">
                          <h4>{t("questions.number", { n: q.order })}</h4>
                          <MediaPreview src={q.media} kind="video" label={t("questions.number", { n: q.order })} />
                          <ul className="admin-answers">
                            {q.answers.map((a) => (
                              <li key={a.id} className="admin-answer">
                                <strong>{ar ? a.characterNameAr : a.characterNameEn}</strong>
                                <MediaPreview src={a.audio} kind="audio" label={ar ? a.characterNameAr : a.characterNameEn} />
                              </li>
                            ))}
                          </ul>
                        </li>
                      ))}
                    </ol>
                  )
                }
              </QueryView>
            </div>
          </>
        )}
      </QueryView>
    </>
  );
}
