import { type ReactNode, useEffect } from "react";
import { PageSpinner } from "../components/spinner.tsx";
import { MaintenancePage } from "../features/info/maintenance-page.tsx";
import { useTranslation } from "../lib/i18n.ts";
import { useSettings } from "../lib/settings.ts";

/**
 * Applies the site settings before anything renders: the primary colour (its 0.2 and 0.8 alpha
 * variants derive from it in CSS) and maintenance mode, which shows only that page (the title goes into
 * each screen's own, app/screen-focus.ts). The console under /admin is never gated, so operators can switch maintenance off again.
 */
export function SettingsGate({ children, pathname }: { children: ReactNode; pathname: string }) {
  const { data, isPending } = useSettings();
  useTranslation(); // re-render on language change

  useEffect(() => {
    if (data) document.documentElement.style.setProperty("--primary", data.primaryColor);
  }, [data]);

  if (isPending) return <PageSpinner />;
  if (data?.siteUnderMaintenance && !pathname.startsWith("/admin")) return <MaintenancePage />;
  return <>{children}</>;
}
