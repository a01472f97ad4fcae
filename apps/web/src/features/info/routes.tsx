import { lazyScreen } from "../../lib/lazy-screen.ts";
import type { RouteObject } from "../../lib/router.tsx";
import { MaintenancePage } from "./maintenance-page.tsx";

export const infoRoutes: RouteObject[] = [
  { path: "/maintenance", element: <MaintenancePage /> },
  {
    path: "/whatsapp-otp",
    lazy: lazyScreen(() => import("./whatsapp-opt-in-page.tsx"), "WhatsappOptInPage", "info"),
  },
  {
    path: "/message-now",
    lazy: lazyScreen(() => import("./message-now-page.tsx"), "MessageNowPage", "info"),
  },
  { path: "/contact", lazy: lazyScreen(() => import("./contact-page.tsx"), "ContactPage", "info") },
  { path: "/termandcondtion", lazy: lazyScreen(() => import("./document-page.tsx"), "TermsPage", "info") },
  { path: "/privacypolicy", lazy: lazyScreen(() => import("./document-page.tsx"), "PrivacyPage", "info") },
];
