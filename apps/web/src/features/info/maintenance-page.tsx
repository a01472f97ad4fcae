import { LanguageSwitch } from "../../components/language-switch.tsx";
import { useTranslation } from "../../lib/i18n.ts";

export function MaintenancePage() {
  const { t } = useTranslation();
  return (
    <main className="screen screen--center maintenance">
      <div className="maintenance__card">
        <svg viewBox="0 0 24 24" width="56" height="56" aria-hidden="true">
          <path
            d="M14.7 6.3a4 4 0 0 0-5.4 5.4L3 18l3 3 6.3-6.3a4 4 0 0 0 5.4-5.4l-2.5 2.5-2.4-.6-.6-2.4z"
            fill="none"
            stroke="var(--primary)"
            strokeWidth="1.8"
            strokeLinejoin="round"
          />
        </svg>
        <h1>{t("maintenance.title")}</h1>
        <p>{t("maintenance.body")}</p>
        <LanguageSwitch />
      </div>
    </main>
  );
}
