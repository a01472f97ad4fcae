/**
 * The phone-number API and account calls of spec section 7, and the person's own account
 * (/api/account). Each throws ApiError with a code that errorText() translates. Phone numbers and
 * codes go out with Western digits whatever the keyboard typed (the server reads them the same way).
 */
import {
  type AccountSettings,
  type AccountUser,
  type Language,
  type MessageChannel,
  normalizeDigits,
  type PhoneSignUpResponse,
  type VerifyOtpResponse,
} from "@hikaya/contracts";
import { api } from "../../../lib/api-client.ts";

export interface PhoneSignUpBody {
  country: string;
  phoneNumber: string;
  password: string;
  agreeToReminder: boolean;
  language: Language;
}

export const phoneSignUp = (body: PhoneSignUpBody) =>
  api<PhoneSignUpResponse>("/sign-up", { body: { ...body, phoneNumber: normalizeDigits(body.phoneNumber) } });

export const sendOtp = (body: { country: string; phoneNumber: string; language?: Language }) =>
  api<{ user: string }>("/send-otp", { body: { ...body, phoneNumber: normalizeDigits(body.phoneNumber) } });

/** The reset token; with `mfa` when the account has an authenticator factor to pass first. */
export const verifyOtp = (body: { otp: string; user: string }) =>
  api<VerifyOtpResponse>("/verify-otp", { body: { ...body, otp: normalizeDigits(body.otp) } });

/** `accessToken`: the recovery session that passed the authenticator factor, when the account has one. */
export const resetPassword = (
  body: { password: string; confirmPassword: string; token: string; country: string },
  accessToken?: string,
) => api<unknown>("/reset-password", { body, ...(accessToken ? { token: accessToken } : {}) });

export const changePassword = (body: { oldPassword: string; newPassword: string }) => api<unknown>("/change-password", { body });

export interface CreateUserBody {
  id: string;
  phoneNumber?: string;
  countryCode?: string;
  name?: string;
  fromLandingPage?: boolean;
  agreeToReminder?: boolean;
  language?: Language;
}

/** After sign-up the spec makes a create-user call with the id, username and landing flag (and the reminders answer). */
export const createUser = (body: CreateUserBody) => api<AccountUser>("/users", { body });

// ── the person's own account (reads and preferences: lib/account.ts) ────────────────────────────

/** Sends a code to the new number; the login phone changes only once it is verified. */
export const startPhoneChange = (body: { country: string; phoneNumber: string; channel: MessageChannel }) =>
  api<AccountSettings>("/account/phone", { body: { ...body, phoneNumber: normalizeDigits(body.phoneNumber) } });

export const verifyPhoneChange = (code: string) =>
  api<AccountSettings>("/account/phone/verify", { body: { code: normalizeDigits(code) } });

export const cancelPhoneChange = () => api<AccountSettings>("/account/phone/cancel", { method: "POST" });

export const deleteAccount = (password: string) => api<{ message: string }>("/account/delete", { body: { password } });
