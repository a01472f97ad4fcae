import { lazyScreen } from "../../lib/lazy-screen.ts";
import type { RouteObject } from "../../lib/router.tsx";

const screen = <T extends Record<string, unknown>>(load: () => Promise<T>, name: keyof T) => lazyScreen(load, name, "stories");

/** The story journey (spec sections 2, 4 and 9), each screen loaded on first use. */
export const storiesRoutes: RouteObject[] = [
  { path: "/", lazy: screen(() => import("./home-page.tsx"), "HomeScreen") },
  { path: "/story/:id", lazy: screen(() => import("./story-page.tsx"), "StoryPage") },
  { path: "/questions/:id/:index", lazy: screen(() => import("./questions-page.tsx"), "QuestionsPage") },
  { path: "/arabic-questions", lazy: screen(() => import("./questions-page.tsx"), "ArabicQuestionsPage") },
  { path: "/arabic-questions/:id/:index", lazy: screen(() => import("./questions-page.tsx"), "ArabicQuestionsPage") },
  { path: "/add-website/:id/:index", lazy: screen(() => import("./add-website-page.tsx"), "AddWebsitePage") },
  { path: "/start-recording/:id/:index", lazy: screen(() => import("./start-recording-page.tsx"), "StartRecordingPage") },
  { path: "/start-recording2/:id/:index", lazy: screen(() => import("./start-recording2-page.tsx"), "StartRecording2Page") },
];
