import { FALLBACK_LANGUAGE, LANGUAGES, type Language } from "@hikaya/contracts";

/**
 * The texts Hikaya sends by SMS, WhatsApp and e-mail, in the person's language. The code or link comes
 * last, so it stays readable (and copyable) in a right-to-left message too.
 */
const TEXTS = {
  en: {
    code: "Your Hikaya code is {code}",
    resetCode: "Your Hikaya password reset code is {code}",
    phoneChangeCode: "Your Hikaya code to confirm your new phone number is {code}",
    confirmationCode: "Your Hikaya confirmation code is {code}",
    signInLink: "Your Hikaya sign-in code is {code}. Or open {link}",
    resetLink: "Your Hikaya password reset code is {code}. Or open {link}",
    inviteLink: "You are invited to Hikaya. Your code is {code}. Or open {link}",
    operatorAdded: "You have joined the Hikaya console team. Sign in with your usual password at {link}",
  },
  ar: {
    code: "رمزك في حكاية: {code}",
    resetCode: "رمز إعادة تعيين كلمة المرور في حكاية: {code}",
    phoneChangeCode: "رمز تأكيد رقم هاتفك الجديد في حكاية: {code}",
    confirmationCode: "رمز التأكيد في حكاية: {code}",
    signInLink: "رمز تسجيل الدخول إلى حكاية: {code}. أو افتح الرابط: {link}",
    resetLink: "رمز إعادة تعيين كلمة المرور في حكاية: {code}. أو افتح الرابط: {link}",
    inviteLink: "أنت مدعوّ إلى حكاية. رمزك: {code}. أو افتح الرابط: {link}",
    operatorAdded: "انضممت إلى فريق لوحة تحكم حكاية. سجّل الدخول بكلمة مرورك المعتادة من الرابط: {link}",
  },
} as const satisfies Record<Language, Record<string, string>>;

export type TextKind = keyof (typeof TEXTS)["en"];

export function authText(kind: TextKind, language: Language, values: { code: string; link?: string }): string {
  return TEXTS[language][kind].replace("{code}", values.code).replace("{link}", values.link ?? "");
}

const isLanguage = (value: unknown): value is Language => LANGUAGES.includes(value as Language);

/** The first of en/ar an `Accept-Language` header asks for, or null. */
export function languageFromHeader(header: string | string[] | undefined): Language | null {
  const value = Array.isArray(header) ? header.join(",") : (header ?? "");
  for (const part of value.split(",")) {
    const tag = part.split(";")[0]?.trim().toLowerCase().slice(0, 2);
    if (isLanguage(tag)) return tag;
  }
  return null;
}

/** The person's language: the first known candidate (stored choice, request, header), else the spec's fallback. */
export function chooseLanguage(...candidates: unknown[]): Language {
  return candidates.find(isLanguage) ?? FALLBACK_LANGUAGE;
}
