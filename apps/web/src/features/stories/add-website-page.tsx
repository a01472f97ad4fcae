import { useRequireUser } from "../../components/require-user.ts";
import { TitleBar } from "../../components/title-bar.tsx";
import { useTranslation } from "../../lib/i18n.ts";
import { promptInstall } from "../../lib/install-prompt.ts";
import { Link, useParams } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { InstructionModalButton } from "./instruction-video.tsx";
import "./stories.css";

/** /add-website/{id}/{index}: how to add the site to the home screen, with a help video. */
export function AddWebsitePage() {
  const { t } = useTranslation("stories");
  useParams();
  const signedIn = useRequireUser();
  if (!signedIn) return null;

  const install = async () => {
    const outcome = await promptInstall();
    if (outcome === "installed") toast.info(t("menu.alreadyInstalled"));
    // The steps are on this screen: say where they are rather than repeat them.
    else if (outcome === "manual") toast.info(t("menu.followSteps"));
    else if (outcome === "accepted") toast.success(t("menu.installed"));
  };

  return (
    <main className="screen journey add-website">
      <TitleBar title={t("addWebsite.title")} backTo="/" />
      <div className="screen__body">
        <div className="add-website__hero">
          <img className="add-website__icon" src="/icons/icon-192.png" alt="" width={72} height={72} />
          <h2>{t("addWebsite.heading")}</h2>
          <p>{t("addWebsite.intro")}</p>
        </div>
        <section className="steps" aria-labelledby="steps-title">
          <h2 id="steps-title" className="steps__title">
            {t("addWebsite.stepsTitle")}
          </h2>
          <h3>{t("addWebsite.iosTitle")}</h3>
          <ol>
            <li>{t("addWebsite.ios1")}</li>
            <li>{t("addWebsite.ios2")}</li>
            <li>{t("addWebsite.ios3")}</li>
          </ol>
          <p className="steps__note">{t("addWebsite.iosPush")}</p>
          <h3>{t("addWebsite.androidTitle")}</h3>
          <ol>
            <li>{t("addWebsite.android1")}</li>
            <li>{t("addWebsite.android2")}</li>
            <li>{t("addWebsite.android3")}</li>
          </ol>
        </section>
        <div className="actions">
          <button type="button" className="button button--primary" onClick={() => void install()}>
            {t("addWebsite.install")}
          </button>
          <InstructionModalButton location="Add Website" label={t("addWebsite.help")} />
          <Link className="button add-website__skip" to="/?addWeb=1">
            {t("addWebsite.skip")}
          </Link>
        </div>
      </div>
    </main>
  );
}
