import {
  contactSubmissionBodySchema,
  type Language,
  loginFormSchema,
  looksLikePhone,
  sendOtpRequestSchema,
  toE164,
  usernameRegisterFormSchema,
  usernameToEmail,
} from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import type { RequestMeta } from "../auth/auth.service.ts";
import { resolveCountry } from "../auth/phone.ts";
import { submitContact } from "../content/content.service.ts";

/**
 * The public screens' forms when they arrive without scripts (form-posts.routes.ts): each does what the screen's
 * script does, through the same services and so the same rules, limits and lock-outs. A field the screen would
 * refuse is refused with the screen's own message: `details.text` names it in the web app's strings.
 */

export type FormFields = Record<string, string | undefined>;

/**
 * A refusal worded by the screen's own string (`namespace:key`), optionally with values for it; `label` is itself
 * a string's key, the field's name as the screen shows it.
 */
const refuse = (field: string, text: string, values?: Record<string, string | number>) =>
  new AppError("validation_failed", `${field} is not valid`, { field, text, values });

const present = (value: string | undefined) => (value ?? "").trim();

/** The first missing field, checked in the screen's order. */
function requireFields(form: FormFields, rules: [field: string, text: string, missing: boolean][]) {
  const first = rules.find(([, , missing]) => missing);
  if (first) throw refuse(first[0], first[1]);
  return form;
}

/** Each refused field of a form and the first reason (zod's issue code), by the form's own schema. */
function schemaIssues(result: { success: boolean; error?: { issues: readonly { path: PropertyKey[]; code: string }[] } }) {
  const issues = new Map<string, string>();
  for (const issue of result.error?.issues ?? []) {
    const field = String(issue.path[0] ?? "");
    if (!issues.has(field)) issues.set(field, issue.code);
  }
  return issues;
}

/** Login: a username (→ `<username>@<domain>`), an e-mail, or a phone read with the chosen country's dial code. */
export async function signInByForm(deps: AppDeps, form: FormFields, meta: RequestMeta) {
  const username = present(form.username);
  const isPhone = looksLikePhone(username);
  // The screen's own schema; a password only has to be there.
  const issues = schemaIssues(
    loginFormSchema.safeParse({ country: form.country || undefined, username, password: form.password }),
  );
  requireFields(form, [
    ["country", "account:validation.selectCountry", issues.has("country")],
    ["username", "account:validation.usernameRequired", issues.has("username")],
    ["password", "account:validation.passwordRequired", !form.password],
  ]);
  const identity = isPhone
    ? { phone: toE164(username, resolveCountry(form.country ?? "") ?? undefined) }
    : { email: usernameToEmail(username, deps.config.usernameEmailDomain) };
  if ("phone" in identity && !identity.phone) throw new AppError("invalid_phone", "Not a phone number for the country");
  return deps.auth.service.accounts.signInWithPassword({ ...identity, password: form.password }, meta);
}

/** Register (English): the account as the app makes it, then its profile (country, name, reminders, language). */
export async function registerByForm(deps: AppDeps, form: FormFields, language: Language, meta: RequestMeta) {
  const username = present(form.username);
  const issues = schemaIssues(
    usernameRegisterFormSchema.safeParse({ country: form.country ?? "", username, password: form.password ?? "" }),
  );
  requireFields(form, [
    ["country", "account:validation.selectCountry", issues.has("country")],
    ["username", "account:validation.usernameRequired", issues.get("username") === "too_small"],
    ["username", "account:validation.usernameRule", issues.has("username")],
    ["password", "account:validation.passwordRequired", !form.password],
  ]);
  const email = usernameToEmail(username, deps.config.usernameEmailDomain);
  const session = await deps.auth.service.accounts.signUp({ email, password: form.password, data: { username } }, meta);
  await deps.auth.phoneAuth.upsertUser(
    { userId: session.user.id, isAdmin: false },
    {
      id: session.user.id,
      countryCode: form.country,
      name: username,
      fromLandingPage: false,
      agreeToReminder: form.agreeToReminder === "1",
      language,
    },
  );
  return session;
}

/** Forgot password: the code goes out as the screen sends it; the answer names the account for the code screen. */
export async function sendResetCodeByForm(deps: AppDeps, form: FormFields, language: Language, meta: RequestMeta) {
  requireFields(form, [
    ["country", "account:validation.selectCountry", !form.country],
    ["phone", "account:validation.phoneRequired", !present(form.phone)],
  ]);
  const request = sendOtpRequestSchema.parse({ country: form.country, phoneNumber: form.phone, language });
  return deps.auth.phoneAuth.sendOtp(request, meta);
}

/** The contact form's labels, for "City: at most 100 characters." */
const CONTACT_LABELS: Record<string, string> = { name: "name", phone: "phone", city: "city", message: "message" };

/** Contact Us: the same schema and store as POST /api/contactSubmission; the country arrives as its ISO code. */
export async function contactByForm(deps: AppDeps, form: FormFields, address: string) {
  const country = form.country ? new Intl.DisplayNames(["en"], { type: "region" }).of(form.country.toUpperCase()) : undefined;
  const body = {
    name: present(form.name),
    message: present(form.message),
    phone: present(form.phone) || undefined,
    city: present(form.city) || undefined,
    country,
    gender: form.gender || undefined,
  };
  const parsed = contactSubmissionBodySchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? "");
    const label = CONTACT_LABELS[field];
    if (issue?.code === "too_big" && label)
      throw refuse(field, "common:form.tooLong", { label: `info:contact.${label}`, count: Number(issue.maximum) });
    throw refuse(field, label ? "info:contact.required" : "common:errors.validation_failed");
  }
  return submitContact(deps, { userId: null, address }, parsed.data);
}
