import type { RouteObject } from "react-router";
import { loadNamespaces } from "../../lib/i18n.ts";

/** A screen's chunk together with its strings, so it never renders untranslated. */
const withStrings = async <T,>(screen: Promise<T>) => (await Promise.all([screen, loadNamespaces("info")]))[0];

import { MaintenancePage } from "./maintenance-page.tsx";

export const infoRoutes: RouteObject[] = [
  { path: "/maintenance", element: <MaintenancePage /> },
  {
    path: "/whatsapp-otp",
    lazy: async () => ({ Component: (await withStrings(import("./whatsapp-opt-in-page.tsx"))).WhatsappOptInPage }),
  },
  {
    path: "/message-now",
    lazy: async () => ({ Component: (await withStrings(import("./message-now-page.tsx"))).MessageNowPage }),
  },
  { path: "/contact", lazy: async () => ({ Component: (await withStrings(import("./contact-page.tsx"))).ContactPage }) },
  { path: "/termandcondtion", lazy: async () => ({ Component: (await withStrings(import("./document-page.tsx"))).TermsPage }) },
  { path: "/privacypolicy", lazy: async () => ({ Component: (await withStrings(import("./document-page.tsx"))).PrivacyPage }) },
];
