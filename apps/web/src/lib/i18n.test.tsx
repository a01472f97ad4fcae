// @vitest-environment jsdom
import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { currentLanguage, i18n, initI18n, loadNamespaces, setLanguage, translate, useTranslation } from "./i18n.ts";

beforeAll(async () => {
  await initI18n();
  await loadNamespaces("stories", "admin", "messages");
});
afterEach(cleanup);

describe("t()", () => {
  it("interpolates {{name}} and finds nested keys", async () => {
    await setLanguage("en");
    expect(i18n.t("actions.close")).toBe("Close");
    expect(translate("en", "common", "errors.waitSeconds", { count: 45 })).toBe("Too many attempts. Try again in 45 seconds.");
  });

  it("chooses English plural forms by count, and _zero for 0 when the file has one", async () => {
    await setLanguage("en");
    expect(translate("en", "common", "errors.waitMinutes", { count: 1 })).toBe("Too many attempts. Try again in 1 minute.");
    expect(translate("en", "common", "errors.waitMinutes", { count: 2 })).toBe("Too many attempts. Try again in 2 minutes.");
  });

  it("chooses all six Arabic plural forms (zero, one, two, few, many, other)", async () => {
    await setLanguage("ar");
    const forms = [0, 1, 2, 3, 11, 100].map((count) => translate("ar", "common", "errors.waitMinutes", { count }));
    expect(forms).toEqual([
      "محاولات كثيرة. حاول مرة أخرى بعد لحظات.",
      "محاولات كثيرة. حاول مرة أخرى بعد دقيقة واحدة.",
      "محاولات كثيرة. حاول مرة أخرى بعد دقيقتين.",
      "محاولات كثيرة. حاول مرة أخرى بعد 3 دقائق.",
      "محاولات كثيرة. حاول مرة أخرى بعد 11 دقيقة.",
      "محاولات كثيرة. حاول مرة أخرى بعد 100 دقيقة.",
    ]);
    // English has no _zero: 0 takes the plural form.
    expect(translate("en", "common", "errors.waitMinutes", { count: 0 })).toBe("Too many attempts. Try again in 0 minutes.");
  });

  it("finds keys that contain dots themselves, as i18next does", () => {
    expect(translate("en", "admin", "audit.actions.story.create")).toBe("Created a story");
    expect(translate("en", "admin", "audit.actions.story.create", { defaultValue: "story.create" })).toBe("Created a story");
  });

  it("falls back to _other, then the bare key, then defaultValue, then the key itself", () => {
    expect(translate("en", "common", "actions.close", { count: 5 })).toBe("Close");
    expect(translate("en", "admin", "audit.actions.no_such_action", { defaultValue: "no_such_action" })).toBe("no_such_action");
    expect(translate("en", "common", "no.such.key")).toBe("no.such.key");
  });
});

function Title() {
  const { t, i18n: state } = useTranslation("stories");
  return <h1 lang={state.language}>{t("menu.stories")}</h1>;
}

describe("switching language", () => {
  it("loads every namespace in use in the new language before components re-render in it", async () => {
    await setLanguage("en");
    render(<Title />);
    const english = screen.getByRole("heading").textContent;
    await act(() => setLanguage("ar"));
    expect(currentLanguage()).toBe("ar");
    expect(document.documentElement.dir).toBe("rtl");
    expect(document.documentElement.lang).toBe("ar");
    const heading = screen.getByRole("heading");
    expect(heading.getAttribute("lang")).toBe("ar");
    expect(heading.textContent).not.toBe(english);
    expect(heading.textContent).not.toBe("menu.stories");
    expect(localStorage.getItem("i18nextLng")).toBe("ar");
  });
});
