import { contactSubmissionBodySchema, phoneSignUpRequestSchema, verifyOtpRequestSchema } from "@hikaya/contracts";
import { describe, expect, it } from "vitest";
import { fieldProblems } from "./form-rules.ts";

describe("fieldProblems", () => {
  it("says which field the server's schema refuses, and why", () => {
    expect(fieldProblems(verifyOtpRequestSchema, { otp: "   ", user: "u1" })).toEqual({ otp: { reason: "required" } });
    expect(fieldProblems(verifyOtpRequestSchema, { otp: "١٢٣٤٥٦", user: "u1" })).toEqual({});
    expect(fieldProblems(phoneSignUpRequestSchema, { country: "", phoneNumber: "7".repeat(41), password: "x" })).toEqual({
      country: { reason: "required" },
      phoneNumber: { reason: "tooLong", limit: 40 },
    });
  });

  it("names the contact form's limit, the one the server keeps", () => {
    const problems = fieldProblems(contactSubmissionBodySchema, { name: "Huda", message: "x".repeat(20_000) });
    expect(problems).toEqual({ message: { reason: "tooLong", limit: 5000 } });
  });
});
