import { TitleBar } from "../../components/title-bar.tsx";
import { useTranslation } from "../../lib/i18n.ts";
import { Link } from "../../lib/router.tsx";
import "./info.css";

/** Message-now: Message Now (to the Message Center) or Go To Stories. */
export function MessageNowPage() {
  const { t } = useTranslation("info");
  return (
    <main className="screen info-screen">
      <TitleBar title={t("messageNow.title")} backTo="/" />
      <div className="screen__body info-screen__body">
        <div className="info-card">
          <span className="info-card__icon" aria-hidden="true">
            <svg viewBox="0 0 24 24" width="40" height="40" aria-hidden="true">
              <path d="M4 5h16v11H9l-5 4z" fill="none" stroke="#fff" strokeWidth="1.8" strokeLinejoin="round" />
              <path d="M8 9.5h8M8 12.5h5" stroke="#fff" strokeWidth="1.8" strokeLinecap="round" />
            </svg>
          </span>
          <h2 className="info-card__title">{t("messageNow.heading")}</h2>
          <p className="info-card__text">{t("messageNow.body")}</p>
          <div className="info-card__stack">
            <Link className="button button--primary button--block" to="/user-home">
              {t("messageNow.messageNow")}
            </Link>
            <Link className="button button--block" to="/">
              {t("common.goToStories")}
            </Link>
          </div>
        </div>
      </div>
    </main>
  );
}
