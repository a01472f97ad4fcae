import { afterEach, describe, expect, it, vi } from "vitest";
import { browserTimeZone } from "./geo.ts";

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("the browser's time zone (the country guess when /api/geo names none)", () => {
  it("comes from Temporal where the browser has it, without building an Intl.DateTimeFormat", () => {
    vi.stubGlobal("Temporal", { Now: { timeZoneId: () => "Asia/Amman" } });
    const format = vi.spyOn(Intl, "DateTimeFormat");
    expect(browserTimeZone()).toBe("Asia/Amman");
    expect(format).not.toHaveBeenCalled();
  });

  it("comes from Intl.DateTimeFormat elsewhere", () => {
    vi.stubGlobal("Temporal", undefined);
    expect(browserTimeZone()).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });
});
