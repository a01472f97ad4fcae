/**
 * The build's prerender of the public screens (build/prerender.ts): each screen rendered by React's own static
 * renderer in one language, as a first visit shows it before any script has run. The entry (main.tsx) hydrates it.
 */
import { StrictMode } from "react";
import { prerender } from "react-dom/static";
import { type Language, renderIn } from "../lib/i18n.ts";
import { createStaticRouter, RouterProvider } from "../lib/router.tsx";
import { Providers } from "./providers.tsx";
import { routes } from "./router.tsx";

export async function renderScreen(pathname: string, language: Language): Promise<string> {
  await renderIn(language);
  const router = createStaticRouter(routes, pathname);
  await router.ready;
  const { prelude } = await prerender(
    <StrictMode>
      <Providers>
        <RouterProvider router={router} />
      </Providers>
    </StrictMode>,
  );
  return await new Response(prelude).text();
}
