import { describe, expect, it } from "vitest";
import { formatPhone, phoneOf } from "./phone.ts";

describe("phones in the console", () => {
  it("groups an international number as libphonenumber-js's international format does", () => {
    expect(formatPhone("+962792000000")).toBe("+962 7 9200 0000");
    expect(formatPhone("+966501234567")).toBe("+966 50 123 4567");
    expect(formatPhone("+12025550123")).toBe("+1 202 555 0123");
  });

  it("keeps the dial code apart in a number too short or long to group, and leaves other text alone", () => {
    expect(formatPhone("+9627920000")).toBe("+962 7920000");
    expect(formatPhone("0791234567")).toBe("0791234567");
    expect(formatPhone("")).toBeNull();
    expect(formatPhone(null)).toBeNull();
  });

  it("groups a person's phone from their login phone or from their profile's country and national number", () => {
    expect(phoneOf({ internationalPhone: "+962792000000", countryCode: null, phoneNumber: null })).toBe("+962 7 9200 0000");
    expect(phoneOf({ internationalPhone: null, countryCode: "JO", phoneNumber: "0792000000" })).toBe("+962 7 9200 0000");
    expect(phoneOf({ internationalPhone: null, countryCode: null, phoneNumber: null })).toBeNull();
  });
});
