import {
  changePasswordRequestSchema,
  contactSubmissionBodySchema,
  loginFormSchema,
  phoneSignUpRequestSchema,
  sendOtpRequestSchema,
  usernameRegisterFormSchema,
  verifyOtpRequestSchema,
} from "@hikaya/contracts";
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

  it("holds the account forms to their schemas: the login's phone needs a country, a username its rule", () => {
    expect(fieldProblems(loginFormSchema, { username: "079 123 4567", password: "x" })).toEqual({
      country: { reason: "invalid" },
    });
    expect(fieldProblems(loginFormSchema, { country: "JO", username: "079 123 4567", password: "x" })).toEqual({});
    expect(fieldProblems(loginFormSchema, { username: "nadia", password: "" })).toEqual({});
    expect(fieldProblems(loginFormSchema, { username: "  ", password: "x" })).toEqual({ username: { reason: "required" } });
    expect(fieldProblems(usernameRegisterFormSchema, { country: "", username: "", password: "x" })).toEqual({
      country: { reason: "required" },
      username: { reason: "required" },
    });
    expect(fieldProblems(usernameRegisterFormSchema, { country: "JO", username: "no spaces", password: "x" })).toEqual({
      username: { reason: "invalid" },
    });
    expect(fieldProblems(sendOtpRequestSchema, { country: "JO", phoneNumber: " " })).toEqual({
      phoneNumber: { reason: "required" },
    });
    expect(fieldProblems(changePasswordRequestSchema, { oldPassword: "x", newPassword: "y".repeat(1025) })).toEqual({
      newPassword: { reason: "tooLong", limit: 1024 },
    });
  });
});
