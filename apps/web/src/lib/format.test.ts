import { describe, expect, it } from "vitest";
import { formatBytes, formatChatTime, formatClock, formatDateTime, formatDuration, formatShortDate } from "./format.ts";

const at = (h: number, m: number) => new Date(2026, 0, 2, h, m).toISOString();

describe("chat time (spec: hh:mm A)", () => {
  it("uses a two-digit 12-hour clock with AM/PM", () => {
    expect(formatChatTime(at(0, 5), "en")).toBe("12:05 AM");
    expect(formatChatTime(at(9, 7), "en")).toBe("09:07 AM");
    expect(formatChatTime(at(12, 0), "en")).toBe("12:00 PM");
    expect(formatChatTime(at(23, 59), "en")).toBe("11:59 PM");
  });

  it("names the period in Arabic for Arabic", () => {
    expect(formatChatTime(at(9, 7), "ar")).toBe("09:07 ص");
    expect(formatChatTime(at(15, 30), "ar")).toBe("03:30 م");
  });

  it("shows nothing for a missing time and m:ss for voice notes", () => {
    expect(formatChatTime("", "en")).toBe("");
    expect(formatDuration(null)).toBe("0:00");
    expect(formatDuration(4.6)).toBe("0:05");
    expect(formatDuration(125)).toBe("2:05");
  });
});

describe("console dates", () => {
  it("read with Latin digits in both languages", () => {
    expect(formatDateTime(at(15, 30), "en")).toBe("Jan 2, 2026, 3:30 PM");
    expect(formatDateTime(at(15, 30), "ar")).toMatch(/2026/);
    expect(formatDateTime(at(15, 30), "ar")).not.toMatch(/[٠-٩]/);
    expect(formatDateTime(null, "en")).toBe("—");
    expect(formatShortDate(at(15, 30), "en")).toBe("Jan 2");
    expect(formatShortDate(at(15, 30), "ar")).toBe("2 يناير");
  });
});

describe("formatClock", () => {
  it("writes a recording's length as mm:ss in Latin digits, as the recorder's counter does", () => {
    expect(formatClock(0)).toBe("00:00");
    expect(formatClock(83.6)).toBe("01:24");
    expect(formatClock(600)).toBe("10:00");
  });
});

describe("a story's size (issue 38)", () => {
  it("reads in MB with one decimal, kB below a megabyte, in words in Arabic", () => {
    expect(formatBytes(4_213_000, "en")).toBe("4.2 MB");
    expect(formatBytes(850_400, "en")).toBe("850 kB");
    expect(formatBytes(4_213_000, "ar")).toBe("4.2 ميغابايت");
    expect(formatBytes(850_400, "ar")).toBe("850 كيلوبايت");
  });
});
