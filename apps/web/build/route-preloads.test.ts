import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { lazyRoutesOf, pathsWithoutQuery } from "./route-preloads.ts";

const source = (path: string) => readFileSync(fileURLToPath(new URL(path, import.meta.url)), "utf8");

describe("the routes the build's preload map reads", () => {
  it("reads each lazily loaded screen: its path, its module and its string namespaces, on one line or several", () => {
    const routes = lazyRoutesOf(
      `[
        { path: "/login", lazy: lazyScreen(() => import("./login-page.tsx"), "LoginPage", "account") },
        {
          path: "/story/:id",
          lazy: lazyScreen(() => import("./story-page.tsx"), "StoryPage", "stories", "messages"),
        },
        { path: "/landing", element: <LandingPage /> },
      ]`,
      "routes.tsx",
    );
    expect(routes).toEqual([
      { path: "/login", module: "./login-page.tsx", namespaces: ["account"] },
      { path: "/story/:id", module: "./story-page.tsx", namespaces: ["stories", "messages"] },
    ]);
  });

  it("fails the build for a lazy screen written in another shape, rather than leaving it without preloads", () => {
    const wrapped = `{ path: "/", lazy: screen(lazyScreen(() => import("./home-page.tsx"), "HomeScreen")) }`;
    expect(() => lazyRoutesOf(wrapped, "stories/routes.tsx")).toThrow(/stories\/routes.tsx: 1 lazyScreen route/);
  });

  it("reads every route file of the app as it is today", () => {
    for (const feature of ["account", "characters", "info", "messages", "stories"]) {
      const file = `../src/features/${feature}/routes.tsx`;
      const declared = source(file).match(/lazy:/g)?.length ?? 0;
      expect(lazyRoutesOf(source(file), file), feature).toHaveLength(declared);
    }
    expect(pathsWithoutQuery(source("../src/app/router.tsx"))).toContain("/login");
  });
});
