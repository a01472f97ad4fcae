import { TOAST_CLOSE_MS } from "@hikaya/contracts";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Slide, ToastContainer } from "react-toastify";
import "react-toastify/dist/ReactToastify.css";
import { isRtl, useTranslation } from "../lib/i18n.ts";

export const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } },
});

/** Toasts at bottom centre, closing after 3000 ms, mirrored for Arabic (spec sections 2 and 9). */
function Toasts() {
  const { i18n } = useTranslation();
  return (
    <ToastContainer
      position="bottom-center"
      autoClose={TOAST_CLOSE_MS}
      rtl={isRtl(i18n.resolvedLanguage ?? "ar")}
      transition={Slide}
      newestOnTop
      closeOnClick
      theme="colored"
      limit={3}
    />
  );
}

export function Providers({ children }: { children: ReactNode }) {
  return (
    <QueryClientProvider client={queryClient}>
      {children}
      <Toasts />
    </QueryClientProvider>
  );
}
