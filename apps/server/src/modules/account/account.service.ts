import type { AccountSettings, Language, MessageChannel, PreferencesRequest, ViewingMode } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { AppError, unauthorized } from "../../errors.ts";
import type { RequestMeta } from "../auth/auth.service.ts";
import { phoneWithCountry, resolveCountry } from "../auth/phone.ts";
import { chooseLanguage } from "../auth/texts.ts";
import * as repo from "./account.repository.ts";
import { deleteAccountWithFiles } from "./deletion.service.ts";

/**
 * A signed-in person's own account: their consent answers (with the time each was given), their
 * language, a change of the phone number they sign in with (only after the code sent to the new
 * number is verified), and deleting the account with everything it holds.
 */
type Deps = Pick<AppDeps, "db" | "storage" | "auth" | "config">;

/** A code sent for a phone change is good for as long as any other one-time code. */
const PHONE_CHANGE_TTL_MS = 5 * 60_000;

export async function accountSettings(deps: Deps, userId: string): Promise<AccountSettings> {
  const user = await deps.auth.service.findUser(userId);
  if (!user) throw unauthorized("Please log in.");
  const now = new Date().toISOString();
  const [consent, pending] = await Promise.all([repo.findConsent(deps.db, userId), repo.findPhoneChange(deps.db, userId, now)]);
  const suffix = `@${deps.config.usernameEmailDomain}`;
  const dialCode = consent?.country_code ?? null;
  return {
    userId,
    username: user.email?.endsWith(suffix) ? user.email.slice(0, -suffix.length) : null,
    phone: user.phone
      ? {
          e164: user.phone,
          countryCode: dialCode ?? "",
          phoneNumber: dialCode && user.phone.startsWith(dialCode) ? user.phone.slice(dialCode.length) : user.phone,
        }
      : null,
    language: chooseLanguage(consent?.language),
    agreeToReminder: consent ? consent.agree_to_reminder === 1 : true,
    agreeToReminderAt: consent?.agree_to_reminder_at ?? null,
    remindersStoppedVia:
      consent?.agree_to_reminder === 0 ? ((consent.reminders_stopped_via ?? "profile") as "link" | "reply" | "profile") : null,
    whatsappOptIn:
      consent?.whatsapp_opt_in === null || consent?.whatsapp_opt_in === undefined ? null : consent.whatsapp_opt_in === 1,
    whatsappOptInAt: consent?.whatsapp_opt_in_at ?? null,
    viewingMode: (consent?.viewing_mode as ViewingMode | null | undefined) ?? "best",
    viewingModeChosen: Boolean(consent?.viewing_mode),
    pendingPhone: pending
      ? { e164: pending.phone, channel: pending.channel as MessageChannel, expiresAt: pending.expires_at }
      : null,
  };
}

export async function savePreferences(deps: Deps, userId: string, input: PreferencesRequest): Promise<AccountSettings> {
  const now = new Date().toISOString();
  await repo.saveConsent(deps.db, userId, {
    ...(input.agreeToReminder !== undefined
      ? {
          agree_to_reminder: input.agreeToReminder ? 1 : 0,
          agree_to_reminder_at: now,
          reminders_stopped_via: input.agreeToReminder ? null : "profile",
        }
      : {}),
    ...(input.whatsappOptIn !== undefined ? { whatsapp_opt_in: input.whatsappOptIn ? 1 : 0, whatsapp_opt_in_at: now } : {}),
    ...(input.language ? { language: input.language as Language } : {}),
    ...(input.viewingMode ? { viewing_mode: input.viewingMode } : {}),
  });
  return accountSettings(deps, userId);
}

/**
 * The viewing mode a person who never chose one gets: "save_data" when their browser asks to save data (`Save-Data:
 * on`, Chrome's Lite mode and Android's data saver), else "best". Per request, so the same account answers each
 * device by its own setting.
 */
export function withDefaultMode(settings: AccountSettings, saveData: boolean): AccountSettings {
  if (settings.viewingModeChosen || !saveData) return settings;
  return { ...settings, viewingMode: "save_data" };
}

/** The person and the session a request came with: auth decides from the session whether it may change the phone. */
type Changer = { userId: string; sessionId: string };

/** Sends a code to the new number; the login phone changes only when that code comes back. */
export async function requestPhoneChange(
  deps: Deps,
  caller: Changer,
  input: { country: string; phoneNumber: string; channel: MessageChannel },
  meta: RequestMeta,
): Promise<AccountSettings> {
  const { userId } = caller;
  const country = resolveCountry(input.country);
  const phone = country ? phoneWithCountry(input.country, input.phoneNumber) : null;
  if (!country || !phone)
    throw new AppError("invalid_phone", "Enter a valid phone number for the selected country", {
      field: "phoneNumber",
      reason: "invalid_phone",
    });
  const user = await deps.auth.service.findUser(userId);
  if (!user) throw unauthorized("Please log in.");
  if (user.phone === phone)
    throw new AppError("validation_failed", "This is already your phone number", { field: "phoneNumber", reason: "invalid" });
  await deps.auth.service.requestPhoneChange(caller, phone, input.channel, meta);
  const now = Date.now();
  await repo.savePhoneChange(deps.db, {
    user_id: userId,
    phone,
    dial_code: phone.startsWith(country.dialCode) ? country.dialCode : `+${phone.slice(1, 4)}`,
    channel: input.channel,
    expires_at: new Date(now + PHONE_CHANGE_TTL_MS).toISOString(),
    created_at: new Date(now).toISOString(),
  });
  return accountSettings(deps, userId);
}

export async function verifyPhoneChange(deps: Deps, caller: Changer, code: string, meta: RequestMeta): Promise<AccountSettings> {
  const { userId } = caller;
  const pending = await repo.findPhoneChange(deps.db, userId, new Date().toISOString());
  if (!pending) throw new AppError("otp_expired", "There is no phone change waiting for a code; ask for a new code");
  await deps.auth.service.confirmPhoneChange(caller, pending.phone, code, meta);
  await repo.saveConsent(deps.db, userId, {
    phone_number: pending.phone.slice(pending.dial_code.length),
    country_code: pending.dial_code,
  });
  await repo.deletePhoneChange(deps.db, userId);
  return accountSettings(deps, userId);
}

export async function cancelPhoneChange(deps: Deps, userId: string): Promise<AccountSettings> {
  await repo.deletePhoneChange(deps.db, userId);
  return accountSettings(deps, userId);
}

/** The person's own deletion: their password first, then the one deletion every path shares. */
export async function deleteAccount(deps: Deps, userId: string, password: string, meta: RequestMeta) {
  if (!(await deps.auth.service.passwordMatches(userId, password)))
    throw new AppError("incorrect_password", "Current password is incorrect", { field: "password", reason: "invalid" });
  await deleteAccountWithFiles(deps, userId, meta, { kind: "self" });
  return { message: "Account deleted" };
}
