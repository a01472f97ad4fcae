import { TitleBar } from "../../components/title-bar.tsx";
import { useTranslation } from "../../lib/i18n.ts";
import { Link } from "../../lib/router.tsx";
import "./stories.css";

/** Bad input (a locked story by URL, an unknown id, an index out of range): a clear message and a way back. */
export function ProblemScreen({ title, body }: { title: string; body: string }) {
  const { t } = useTranslation("stories");
  return (
    <main className="screen journey">
      <TitleBar title={title} backTo="/" />
      <div className="screen__body screen--center problem" role="alert">
        <svg viewBox="0 0 24 24" width="56" height="56" aria-hidden="true">
          <circle cx="12" cy="12" r="9.5" fill="none" stroke="var(--primary)" strokeWidth="1.8" />
          <path d="M12 7.5v5.5M12 16.5v.01" stroke="var(--primary)" strokeWidth="2.2" strokeLinecap="round" />
        </svg>
        <h2 className="problem__title">{title}</h2>
        <p className="problem__body">{body}</p>
        <Link className="button button--primary" to="/">
          {t("story.backToStories")}
        </Link>
      </div>
    </main>
  );
}
