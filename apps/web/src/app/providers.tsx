import type { ReactNode } from "react";
import { useTranslation } from "../lib/i18n.ts";
import { Toaster } from "../lib/toast.tsx";

function Toasts() {
  const { t } = useTranslation();
  return <Toaster closeLabel={t("actions.close")} />;
}

/** What every screen shares. TanStack Query is not here: it comes with the screens that use it (query-layout.tsx). */
export function Providers({ children }: { children: ReactNode }) {
  return (
    <>
      {children}
      <Toasts />
    </>
  );
}
