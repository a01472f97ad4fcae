import { lazyScreen } from "../../lib/lazy-screen.ts";
import type { RouteObject } from "../../lib/router.tsx";

/**
 * The story journey (spec sections 2, 4 and 9), each screen loaded on first use. Written out in full, one shape
 * for every route: build/route-preloads.ts reads it.
 */
export const storiesRoutes: RouteObject[] = [
  { path: "/", lazy: lazyScreen(() => import("./home-page.tsx"), "HomeScreen", "stories") },
  { path: "/story/:id", lazy: lazyScreen(() => import("./story-page.tsx"), "StoryPage", "stories") },
  { path: "/questions/:id/:index", lazy: lazyScreen(() => import("./questions-page.tsx"), "QuestionsPage", "stories") },
  { path: "/arabic-questions", lazy: lazyScreen(() => import("./questions-page.tsx"), "ArabicQuestionsPage", "stories") },
  {
    path: "/arabic-questions/:id/:index",
    lazy: lazyScreen(() => import("./questions-page.tsx"), "ArabicQuestionsPage", "stories"),
  },
  { path: "/add-website/:id/:index", lazy: lazyScreen(() => import("./add-website-page.tsx"), "AddWebsitePage", "stories") },
  {
    path: "/start-recording/:id/:index",
    lazy: lazyScreen(() => import("./start-recording-page.tsx"), "StartRecordingPage", "stories"),
  },
  {
    path: "/start-recording2/:id/:index",
    lazy: lazyScreen(() => import("./start-recording2-page.tsx"), "StartRecording2Page", "stories"),
  },
];
