/**
 * The phone-number API and account calls of spec section 7. Each throws ApiError with a code that
 * errorText() translates.
 */
import type { AccountUser, PhoneSignUpResponse } from "@hikaya/contracts";
import { api } from "../../../lib/api-client.ts";
import { getUserId } from "../../../lib/session.ts";

export interface PhoneSignUpBody {
  country: string;
  phoneNumber: string;
  password: string;
  agreeToReminder: boolean;
}

export const phoneSignUp = (body: PhoneSignUpBody) => api<PhoneSignUpResponse>("/sign-up", { body });

export const sendOtp = (body: { country: string; phoneNumber: string }) => api<{ user: string }>("/send-otp", { body });

export const verifyOtp = (body: { otp: string; user: string }) => api<{ token: string }>("/verify-otp", { body });

export const resetPassword = (body: { password: string; confirmPassword: string; token: string; country: string }) =>
  api<unknown>("/reset-password", { body });

export const changePassword = (body: { oldPassword: string; newPassword: string }) => api<unknown>("/change-password", { body });

export interface CreateUserBody {
  id: string;
  phoneNumber?: string;
  countryCode?: string;
  name?: string;
  fromLandingPage?: boolean;
}

/** After sign-up the spec makes a create-user call with the id, username and landing flag. */
export const createUser = (body: CreateUserBody) => api<AccountUser>("/users", { body });

export type AccountChanges = Partial<Record<"country" | "phoneNumber" | "oldPassword" | "newPassword", string>>;

/**
 * Edit profile (spec section 3: country, phoneNumber, oldPassword, newPassword; empty values left
 * out): the password through /api/change-password, the phone number and country on the person's
 * record through POST /api/users (the login phone of an account changes only with a code sent to it).
 */
export async function saveAccountChanges(changes: AccountChanges) {
  if (changes.oldPassword && changes.newPassword)
    await changePassword({ oldPassword: changes.oldPassword, newPassword: changes.newPassword });
  const id = getUserId();
  if (id && (changes.phoneNumber || changes.country))
    await createUser({
      id,
      ...(changes.phoneNumber ? { phoneNumber: changes.phoneNumber } : {}),
      ...(changes.country ? { countryCode: changes.country } : {}),
    });
}
