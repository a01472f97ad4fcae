import type { RouteObject } from "react-router";
import { loadNamespaces } from "../../lib/i18n.ts";

/** The Message Center: /user-home (profile form, then the chat) and /chats. Lazy: most visits never open it. */
export const messagesRoutes: RouteObject[] = [
  {
    path: "/chats",
    lazy: async () => {
      const [module] = await Promise.all([import("./chat-page.tsx"), loadNamespaces("messages")]);
      return { Component: module.ChatPage };
    },
  },
  {
    path: "/user-home",
    lazy: async () => {
      const [module] = await Promise.all([import("./user-home-page.tsx"), loadNamespaces("messages")]);
      return { Component: module.UserHomePage };
    },
  },
];
