import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { RouterProvider } from "react-router/dom";
import { Providers } from "./app/providers.tsx";
import { router } from "./app/router.tsx";
import { initI18n } from "./lib/i18n.ts";
import { startPwa } from "./lib/pwa.ts";
import { hasStoredAuthSession } from "./lib/session.ts";
import "./styles/global.css";

initI18n();
startPwa();
// Someone with a supabase-js session keeps it refreshed; a visitor never downloads supabase-js here.
if (hasStoredAuthSession()) void import("./lib/auth.ts").then((auth) => auth.startAuthSync());

const root = document.getElementById("root");
if (!root) throw new Error("#root is missing from index.html");
createRoot(root).render(
  <StrictMode>
    <Providers>
      <RouterProvider router={router} />
    </Providers>
  </StrictMode>,
);
