import type { ReactNode } from "react";
import { useTranslation } from "../lib/i18n.ts";
import { Link } from "../lib/router.tsx";
import { LanguageSwitch } from "./language-switch.tsx";

/** Screen chrome: a round back button to a given path, a title, and the language switch. */
export function TitleBar({ title, backTo, end }: { title: ReactNode; backTo?: string; end?: ReactNode }) {
  const { t } = useTranslation();
  return (
    <header className="title-bar">
      {backTo ? (
        <Link to={backTo} className="round-button" aria-label={t("actions.back")}>
          <svg viewBox="0 0 24 24" width="22" height="22" className="icon-directional" aria-hidden="true">
            <path
              d="M15 5l-7 7 7 7"
              fill="none"
              stroke="currentColor"
              strokeWidth="2.4"
              strokeLinecap="round"
              strokeLinejoin="round"
            />
          </svg>
        </Link>
      ) : (
        <span className="title-bar__spacer" />
      )}
      <h1 className="title-bar__title">{title}</h1>
      {end ?? <LanguageSwitch />}
    </header>
  );
}
