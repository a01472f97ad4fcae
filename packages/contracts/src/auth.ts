import { z } from "zod";
import { LANGUAGES } from "./constants.ts";
import { isValidUsername, looksLikePhone, normalizeDigits } from "./digits.ts";

/**
 * The phone-number account API (spec section 7) under /api. `country` is a dial code ("+962") or an
 * ISO code ("JO"); `token` is the same access token /auth/v1 issues.
 */

const country = z.string().trim().min(1, "Select country").max(8);
/** Western, Arabic-Indic and Eastern Arabic-Indic digits, spaces and dashes: all read the same. */
const phoneNumber = z.string().trim().min(1).max(40).transform(normalizeDigits);
/** The language the person uses, for the texts sent to them (SMS, WhatsApp). */
const language = z.enum(LANGUAGES).optional();
const password = z.string().max(1024);

export const phoneSignUpRequestSchema = z.object({
  country,
  phoneNumber,
  password,
  agreeToReminder: z.boolean().optional().default(true),
  language,
});
export type PhoneSignUpRequest = z.input<typeof phoneSignUpRequestSchema>;

/**
 * The login screen's form (the app signs in through /auth/v1; without scripts it posts to POST /login): a username
 * (→ `<username>@<domain>`), an e-mail or a phone number, read with the chosen country, which a phone number needs.
 * A password box only checks it is not empty (its strength is the auth server's rule).
 */
export const loginFormSchema = z
  .object({ country: z.string().trim().max(8).optional(), username: z.string().trim().min(1).max(320), password })
  .refine((form) => !looksLikePhone(form.username) || Boolean(form.country), {
    path: ["country"],
    message: "Select country",
  });
export type LoginForm = z.input<typeof loginFormSchema>;

/** The English register form (the app: /auth/v1/signup then POST /api/users; without scripts: POST /register). */
export const usernameRegisterFormSchema = z.object({
  country,
  username: z
    .string()
    .trim()
    .min(1)
    .max(320)
    .refine(isValidUsername, "Username may use letters, digits, dots and dashes (3 to 30 characters)"),
  password,
});
export type UsernameRegisterForm = z.input<typeof usernameRegisterFormSchema>;

export const accountUserSchema = z.object({
  id: z.string(),
  phoneNumber: z.string().nullable(),
  countryCode: z.string().nullable(),
  name: z.string().nullable(),
  fromLandingPage: z.boolean(),
});
export type AccountUser = z.infer<typeof accountUserSchema>;

export const phoneSignUpResponseSchema = z.object({
  token: z.string(),
  refreshToken: z.string(),
  expiresAt: z.number().int(),
  user: accountUserSchema,
});
export type PhoneSignUpResponse = z.infer<typeof phoneSignUpResponseSchema>;

export const sendOtpRequestSchema = z.object({ country, phoneNumber, language });
export const sendOtpResponseSchema = z.object({ user: z.string() });

export const verifyOtpRequestSchema = z.object({
  otp: z.string().trim().min(1, "Please enter OTP").max(40).transform(normalizeDigits),
  user: z.string().trim().min(1).max(64),
});
/**
 * A reset token: single use, 10 minutes, good only for POST /api/reset-password. An account with a verified
 * authenticator factor also gets `mfa`: a session at aal1 (GoTrue's recovery session) that must pass the factor
 * (`/auth/v1/factors/{factorId}/challenge` and `/verify`, which raise it to aal2) before reset-password, sent with the
 * aal2 access token, sets the password.
 */
export const verifyOtpResponseSchema = z.object({
  token: z.string(),
  mfa: z.object({ factorId: z.string(), accessToken: z.string(), refreshToken: z.string(), expiresAt: z.number() }).optional(),
});

export type VerifyOtpResponse = z.infer<typeof verifyOtpResponseSchema>;

export const resetPasswordRequestSchema = z.object({
  password,
  confirmPassword: password,
  token: z.string().min(1).max(256),
  country: z.string().max(8).optional(),
});

export const changePasswordRequestSchema = z.object({ oldPassword: password, newPassword: password });

export const accountMessageSchema = z.object({ message: z.string() });

export const createAccountUserRequestSchema = z.object({
  id: z.string().min(1).max(64),
  phoneNumber: z.string().trim().max(32).nullish(),
  countryCode: z.string().trim().max(8).nullish(),
  name: z.string().trim().max(200).nullish(),
  fromLandingPage: z.boolean().optional(),
  /** The English sign-up's "Send me reminders" answer (stored with its time). */
  agreeToReminder: z.boolean().optional(),
  language,
});
export type CreateAccountUserRequest = z.input<typeof createAccountUserRequestSchema>;

export const outboxMessageSchema = z.object({
  id: z.string(),
  channel: z.enum(["sms", "whatsapp", "email"]),
  recipient: z.string(),
  body: z.string(),
  purpose: z.string().nullable(),
  provider: z.string(),
  status: z.string(),
  providerMessageId: z.string().nullable(),
  error: z.string().nullable(),
  createdAt: z.string(),
});
export type OutboxMessage = z.infer<typeof outboxMessageSchema>;
/** Newest first; `nextCursor` (null on the last page) is the `cursor` of the next page. */
export const outboxListSchema = z.object({ messages: z.array(outboxMessageSchema), nextCursor: z.string().nullable() });
export type OutboxList = z.infer<typeof outboxListSchema>;

/**
 * POST /api/session-handoff: the session a form posted without scripts signed in to, traded once for the
 * HttpOnly cookie that sign-in set, with the Remember Me choice that decides where the app keeps it.
 */
export const sessionHandoffSchema = z.object({
  access_token: z.string(),
  refresh_token: z.string(),
  expires_at: z.number(),
  user: z.object({ id: z.string(), email: z.string().optional(), phone: z.string().optional() }),
  remember: z.boolean(),
});
export type SessionHandoff = z.infer<typeof sessionHandoffSchema>;
