import { currentLanguage, setLanguage, useTranslation } from "../lib/i18n.ts";

/** Switches between English and Arabic; reachable from every screen. */
export function LanguageSwitch({ className }: { className?: string }) {
  const { t } = useTranslation();
  const next = currentLanguage() === "ar" ? "en" : "ar";
  return (
    <button
      type="button"
      className={`language-switch ${className ?? ""}`}
      lang={next}
      aria-label={`${t("language.label")}: ${t("language.switchTo")}`}
      onClick={() => void setLanguage(next)}
    >
      {t("language.switchTo")}
    </button>
  );
}
