import { describe, expect, it } from "vitest";
import { ApiError } from "./api-client.ts";
import { loginIdentifier } from "./auth.ts";
import { errorKey } from "./errors.ts";

describe("login identifier", () => {
  it("maps a username to the e-mail identity", () => {
    expect(loginIdentifier("Sara", "+962", "users.hikaya.app")).toEqual({ email: "sara@users.hikaya.app" });
  });

  it("reads a phone number with the selected country's dial code", () => {
    expect(loginIdentifier("0790123456", "+962", "users.hikaya.app")).toEqual({ phone: "+962790123456" });
    expect(loginIdentifier("+970599123456", undefined, "users.hikaya.app")).toEqual({ phone: "+970599123456" });
  });

  it("refuses a phone number without a country", () => {
    expect(loginIdentifier("0790123456", undefined, "users.hikaya.app")).toBeNull();
  });
});

/** supabase-js's errors, as it builds them from the server's `error_code`. */
function authError(name: string, code: string | undefined, status: number, message = "x") {
  return Object.assign(new Error(message), { __isAuthError: true as const, name, code, status });
}

describe("error codes", () => {
  it("maps supabase-js auth errors onto the translated codes", () => {
    expect(errorKey(authError("AuthApiError", "user_already_exists", 422))).toBe("user_already_exists");
    expect(errorKey(authError("AuthApiError", "email_exists", 422))).toBe("user_already_exists");
    expect(errorKey(authError("AuthApiError", "invalid_credentials", 400))).toBe("invalid_credentials");
    expect(errorKey(authError("AuthWeakPasswordError", "weak_password", 422))).toBe("weak_password");
    expect(errorKey(authError("AuthApiError", "validation_failed", 400, "Invalid phone number format (E.164 required)"))).toBe(
      "invalid_phone",
    );
    expect(errorKey(authError("AuthApiError", "over_request_rate_limit", 429))).toBe("rate_limited");
    expect(errorKey(authError("AuthRetryableFetchError", undefined, 0))).toBe("network");
  });

  it("keeps the API's own codes", () => {
    expect(errorKey(new ApiError("invalid_otp", "bad", 400))).toBe("invalid_otp");
    expect(errorKey(new ApiError("network", "offline", 0))).toBe("network");
    expect(errorKey(new Error("boom"))).toBe("unknown");
  });
});
