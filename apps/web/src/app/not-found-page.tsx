import { TitleBar } from "../components/title-bar.tsx";
import { useTranslation } from "../lib/i18n.ts";
import { Link } from "../lib/router.tsx";

export function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <main className="screen">
      <TitleBar title={t("notFound.title")} backTo="/" />
      <div className="screen__body screen--center">
        <Link className="button button--primary" to="/">
          {t("notFound.home")}
        </Link>
      </div>
    </main>
  );
}
