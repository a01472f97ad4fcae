import type { ReactNode } from "react";
import { TitleBar } from "../../components/title-bar.tsx";
import { currentLanguage, useTranslation } from "../../lib/i18n.ts";
import { useSettings } from "../../lib/settings.ts";
import "../../components/form-fields.css";
import "./account.css";

/** The frame every account screen shares: title bar (back, title, language), a short heading, the form. */
export function AuthScreen({
  title,
  heading,
  intro,
  backTo,
  children,
  footer,
}: {
  title: string;
  heading?: string;
  intro?: ReactNode;
  backTo?: string;
  children: ReactNode;
  footer?: ReactNode;
}) {
  const { t } = useTranslation();
  const { data } = useSettings();
  const product = data?.title[currentLanguage()] || t("productTitle");
  return (
    <main className="screen auth-screen">
      <TitleBar title={title} backTo={backTo} />
      <div className="screen__body auth-screen__body">
        <div className="auth-screen__hero">
          <span className="auth-screen__mark" aria-hidden="true">
            <svg viewBox="0 0 48 48" width="40" height="40" aria-hidden="true">
              <path d="M8 12c6-3 11-3 16 1v25c-5-4-10-4-16-1z" fill="#fff" opacity="0.95" />
              <path d="M40 12c-6-3-11-3-16 1v25c5-4 10-4 16-1z" fill="#fff" opacity="0.75" />
            </svg>
          </span>
          <p className="auth-screen__product">{product}</p>
          {heading && <h2 className="auth-screen__heading">{heading}</h2>}
          {intro && <p className="auth-screen__intro">{intro}</p>}
        </div>
        {children}
        {footer && <div className="auth-screen__footer">{footer}</div>}
      </div>
    </main>
  );
}

/** Shows the first validation message as a toast too (spec section 8: errors show as toasts). */
export function firstError(errors: Record<string, string | null | undefined>): string | undefined {
  return Object.values(errors).find((e): e is string => Boolean(e));
}
