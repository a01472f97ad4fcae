import { disableSchemaCompilation } from "@hikaya/contracts";
import { StrictMode } from "react";
import { createRoot, hydrateRoot } from "react-dom/client";
import { startEarlyRequests } from "./app/early-requests.ts";
import { Providers } from "./app/providers.tsx";
import { routes } from "./app/router.tsx";
import { dropFormNoticeOnNextStep, keepValuesThePageCameWith } from "./lib/form-notice.ts";
import { currentLanguage, initI18n } from "./lib/i18n.ts";
import { startPwa } from "./lib/pwa.ts";
import { createBrowserRouter, RouterProvider } from "./lib/router.tsx";
import { hasStoredAuthSession, startAuthSync } from "./lib/session.ts";
import { hasSessionHandoff, takeSessionHandoff } from "./lib/session-handoff.ts";
import { refreshSettings } from "./lib/settings.ts";
import "./styles/global.css";

// Before any schema parses: the CSP forbids eval, and zod's compiled parsers use it.
disableSchemaCompilation();
// A sign-in made by a form posted before scripts ran waits to be handed over: taken first, so the app starts signed in.
if (hasSessionHandoff()) void takeSessionHandoff().finally(start);
else start();

function start() {
  // The first screen's chunk starts loading now, beside the strings and the settings.
  const router = createBrowserRouter(routes);
  // The common strings of the person's language load beside the first screen's chunk.
  const strings = initI18n();
  // The settings gate shows nothing before the site settings arrive: ask now, beside the chunks, not at first render.
  const settings = refreshSettings();
  startPwa();
  // A signed-in person's session is kept fresh from the first moment (refreshed now if it expired while away).
  if (hasStoredAuthSession()) startAuthSync();
  // The first screen's data (the signed-in home's story list) beside its chunks, not after them.
  startEarlyRequests(window.location.pathname);

  const root = document.getElementById("root");
  if (!root) throw new Error("#root is missing from index.html");
  const app = (
    <StrictMode>
      <Providers>
        <RouterProvider router={router} />
      </Providers>
    </StrictMode>
  );
  // A public screen arrives prerendered in the language the server picked (build/prerender.ts). React takes over that
  // HTML once the screen's chunk, its strings and the settings are in, so the page a slow phone already shows stays.
  // In another language than the app starts in (a choice kept on this device only), the app renders afresh.
  const prerendered = root.dataset.prerendered;
  if (prerendered && prerendered === currentLanguage()) {
    void Promise.all([strings, router.ready, settings]).then(
      () => {
        keepValuesThePageCameWith();
        hydrateRoot(root, app);
      },
      () => renderAfresh(),
    );
  } else {
    void strings.then(renderAfresh);
  }
  // A script-less form's answer (the server's notice above the screen) is old news once the person moves on.
  dropFormNoticeOnNextStep();

  function renderAfresh() {
    if (!root) return;
    root.replaceChildren();
    createRoot(root).render(app);
  }
}
