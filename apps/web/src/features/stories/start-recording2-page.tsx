import { useRequireUser } from "../../components/require-user.ts";
import { TitleBar } from "../../components/title-bar.tsx";
import { useTranslation } from "../../lib/i18n.ts";
import { Link } from "../../lib/router.tsx";
import "./stories.css";

/** /start-recording2/{id}/{index}: after the later stories, Message Now or back to the stories. */
export function StartRecording2Page() {
  const { t } = useTranslation("stories");
  const signedIn = useRequireUser();
  if (!signedIn) return null;
  return (
    <main className="screen journey">
      <TitleBar title={t("recording.title")} backTo="/" />
      <div className="screen__body screen--center recording2">
        <svg viewBox="0 0 24 24" width="64" height="64" aria-hidden="true">
          <circle cx="12" cy="12" r="10" fill="var(--primary-20)" />
          <path
            d="M7 12.5l3.2 3.2L17 9"
            fill="none"
            stroke="var(--primary)"
            strokeWidth="2.2"
            strokeLinecap="round"
            strokeLinejoin="round"
          />
        </svg>
        <h2 className="recording2__title">{t("recording2.title")}</h2>
        <p>{t("recording2.body")}</p>
        <div className="actions">
          <Link className="button button--primary" to="/user-home">
            {t("recording2.messageNow")}
          </Link>
          <Link className="button" to="/">
            {t("recording2.goToStories")}
          </Link>
        </div>
      </div>
    </main>
  );
}
