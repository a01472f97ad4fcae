// @vitest-environment jsdom
import { beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "./api-client.ts";
import { errorText, fieldError, waitText } from "./errors.ts";
import { i18n, initI18n } from "./i18n.ts";

beforeAll(() => {
  initI18n();
});

describe("errors a person can act on", () => {
  it("says how long to wait, with the right plural forms in both languages", async () => {
    await i18n.changeLanguage("en");
    expect(waitText(300)).toBe("Too many attempts. Try again in 5 minutes.");
    expect(waitText(45)).toBe("Too many attempts. Try again in 45 seconds.");
    expect(waitText(61)).toBe("Too many attempts. Try again in 2 minutes.");
    expect(errorText(new ApiError("rate_limited", "x", 429, { retryAfterSeconds: 60 }))).toBe(
      "Too many attempts. Try again in 1 minute.",
    );
    await i18n.changeLanguage("ar");
    expect(waitText(60)).toBe("محاولات كثيرة. حاول مرة أخرى بعد دقيقة واحدة.");
    expect(waitText(120)).toBe("محاولات كثيرة. حاول مرة أخرى بعد دقيقتين.");
    expect(waitText(300)).toBe("محاولات كثيرة. حاول مرة أخرى بعد 5 دقائق.");
    expect(waitText(900)).toBe("محاولات كثيرة. حاول مرة أخرى بعد 15 دقيقة.");
  });

  it("names the refused field and why, in the person's language", async () => {
    await i18n.changeLanguage("en");
    const refused = new ApiError("invalid_phone", "x", 400, { field: "phoneNumber", reason: "invalid_phone" });
    expect(fieldError(refused)).toEqual({ field: "phoneNumber", text: "Enter a valid phone number for the selected country." });
    expect(errorText(refused)).not.toMatch(/E\.164/);
    await i18n.changeLanguage("ar");
    expect(fieldError(new ApiError("validation_failed", "x", 400, { field: "username", reason: "invalid_username" }))?.text).toBe(
      "يمكن أن يحتوي اسم المستخدم على حروف وأرقام ونقاط وشرطات (من 3 إلى 30 حرفًا).",
    );
    expect(fieldError(new ApiError("validation_failed", "x", 400))).toBeNull();
  });

  it("tells a blocked person and an operator with a spent invitation what happened, in their language", async () => {
    const banned = { __isAuthError: true, name: "AuthApiError", message: "User is banned", status: 400, code: "user_banned" };
    await i18n.changeLanguage("en");
    expect(errorText(banned)).toBe("This account has been blocked. Please contact the program team.");
    await i18n.changeLanguage("ar");
    expect(errorText(banned)).toBe("تم حظر هذا الحساب. يُرجى التواصل مع فريق البرنامج.");
    expect(errorText(new ApiError("invite_invalid", "x", 400))).toBe(
      "رمز الدعوة هذا استُخدم من قبل أو انتهت صلاحيته. اطلب دعوة جديدة.",
    );
    expect(errorText(new ApiError("search_too_long", "x", 400))).toBe("نص البحث طويل جدًا: استخدم 200 حرف على الأكثر.");
  });

  it("tells a wrong current password and too many wrong codes apart from bad credentials", async () => {
    await i18n.changeLanguage("en");
    expect(errorText(new ApiError("incorrect_password", "x", 400))).toBe("Current password is incorrect");
    expect(errorText(new ApiError("too_many_attempts", "x", 429))).toBe(
      "This code is used up after too many wrong tries. Ask for a new code.",
    );
    await i18n.changeLanguage("ar");
    expect(errorText(new ApiError("incorrect_password", "x", 400))).toBe("كلمة المرور الحالية غير صحيحة");
  });

  it("says why an upload's voice or video was refused, with the limit the server named", async () => {
    await i18n.changeLanguage("en");
    expect(errorText(new ApiError("voice_too_long", "x", 422))).toBe(
      "This recording is longer than 10 minutes. Please record a shorter one.",
    );
    expect(errorText(new ApiError("video_too_large", "x", 422, { limitPx: 4096 }))).toBe(
      "This video's picture is too large: at most 4096 pixels on a side.",
    );
    await i18n.changeLanguage("ar");
    expect(errorText(new ApiError("video_too_long", "x", 422, { limitMinutes: 60 }))).toBe(
      "هذا الفيديو أطول من المسموح. المدة القصوى بالدقائق: 60.",
    );
    expect(errorText(new ApiError("media_unreadable", "x", 415))).toBe(
      "تعذّرت قراءة هذا الملف صوتًا أو فيديو. سجّله مرة أخرى أو اختر ملفًا آخر.",
    );
  });
});
