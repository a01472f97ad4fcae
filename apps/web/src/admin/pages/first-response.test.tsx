// @vitest-environment jsdom
import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { initI18n, loadNamespaces, setLanguage, type TFunction, translate } from "../../lib/i18n.ts";
import { FirstResponse, waitText } from "./first-response.tsx";

beforeAll(async () => {
  await initI18n();
  await loadNamespaces("admin");
  await setLanguage("en");
});
afterEach(cleanup);

const t = ((key: string, options?: Record<string, unknown>) => translate("en", "admin", key, options)) as TFunction<"admin">;

describe("the team's first-response time in Analytics", () => {
  it("words a wait in seconds, minutes, hours and days", () => {
    expect(waitText(45, t)).toBe("45 s");
    expect(waitText(600, t)).toBe("10 min");
    expect(waitText(3 * 3600 + 5 * 60, t)).toBe("3 h 5 min");
    expect(waitText(2 * 86_400 + 4 * 3600, t)).toBe("2 d 4 h");
  });

  it("shows each week's median and 90th percentile, and links the longest waits to their conversations", () => {
    render(
      <FirstResponse
        now={Date.parse("2026-03-12T10:00:00.000Z")}
        data={{
          weeks: [
            { weekStart: "2026-03-02", answered: 4, unanswered: 0, medianSeconds: 600, p90Seconds: 3600 },
            { weekStart: "2026-03-09", answered: 0, unanswered: 1, medianSeconds: null, p90Seconds: null },
          ],
          longestWaiting: [{ userId: "u-1", name: "Huda", waitingSince: "2026-03-11T10:00:00.000Z" }],
        }}
      />,
    );
    const rows = within(screen.getByTestId("first-response")).getAllByRole("row");
    expect(rows.map((r) => Array.from(r.children, (c) => c.textContent))).toEqual([
      ["Week", "Median", "90% answered within", "Answered", "Still waiting"],
      ["Week of Mar 2", "10 min", "1 h 0 min", "4", "0"],
      ["Week of Mar 9", "—", "—", "0", "1"],
    ]);
    const link = screen.getByRole("link", { name: "Huda" });
    expect(link.getAttribute("href")).toBe("/admin/inbox/u-1");
    expect(link.parentElement?.textContent).toContain("waiting 1 d 0 h, since");
  });
});
