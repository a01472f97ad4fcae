import { lazyScreen } from "../../lib/lazy-screen.ts";
import type { RouteObject } from "../../lib/router.tsx";

/** The Message Center: /user-home (profile form, then the chat) and /chats. Lazy: most visits never open it. */
export const messagesRoutes: RouteObject[] = [
  { path: "/chats", lazy: lazyScreen(() => import("./chat-page.tsx"), "ChatPage", "messages") },
  { path: "/user-home", lazy: lazyScreen(() => import("./user-home-page.tsx"), "UserHomePage", "messages") },
];
