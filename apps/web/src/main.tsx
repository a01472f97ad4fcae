import { disableSchemaCompilation } from "@hikaya/contracts";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { startEarlyRequests } from "./app/early-requests.ts";
import { Providers } from "./app/providers.tsx";
import { router } from "./app/router.tsx";
import { initI18n } from "./lib/i18n.ts";
import { startPwa } from "./lib/pwa.ts";
import { RouterProvider } from "./lib/router.tsx";
import { hasStoredAuthSession, startAuthSync } from "./lib/session.ts";
import { refreshSettings } from "./lib/settings.ts";
import "./styles/global.css";

// Before any schema parses: the CSP forbids eval, and zod's compiled parsers use it.
disableSchemaCompilation();
// The common strings of the person's language load beside the first screen's chunk (the router started it).
const strings = initI18n();
// The settings gate shows nothing before the site settings arrive: ask now, beside the chunks, not at first render.
void refreshSettings();
startPwa();
// A signed-in person's session is kept fresh from the first moment (refreshed now if it expired while away).
if (hasStoredAuthSession()) startAuthSync();
// The first screen's data (the signed-in home's story list) beside its chunks, not after them.
startEarlyRequests(window.location.pathname);

const root = document.getElementById("root");
if (!root) throw new Error("#root is missing from index.html");
void strings.then(() =>
  createRoot(root).render(
    <StrictMode>
      <Providers>
        <RouterProvider router={router} />
      </Providers>
    </StrictMode>,
  ),
);
