import { lazyScreen } from "../../lib/lazy-screen.ts";
import type { RouteObject } from "../../lib/router.tsx";

const inboxPage = lazyScreen(() => import("./inbox-page.tsx"), "InboxPage", "inbox", "messages");

/**
 * The facilitator inbox, mounted by the console shell (admin-app.tsx) under /admin: the conversation
 * list at /admin/inbox and one conversation at /admin/inbox/:userId. The console's nav shows it as
 * `inboxNav` (label key admin:nav.inbox).
 */
export const inboxRoutes: RouteObject[] = [
  { path: "inbox", lazy: inboxPage },
  { path: "inbox/:userId", lazy: inboxPage },
];

export const inboxNav = { to: "/admin/inbox", labelKey: "nav.inbox" } as const;
