import { AccountPages, adminToken, createPhoneAccount, dismissToasts, expectAccessible, unique } from "../pages/account.ts";
import { expect, test } from "../support/fixtures.ts";

// The screens anyone can open without an account: contact, the documents, the characters, maintenance.
// The same browser setting as account.spec.ts: nothing pre-selects a country unless a test asks for it.
test.use({ locale: "en", timezoneId: "UTC" });

test.describe("information screens", () => {
  test("whatsapp opt-in stores the choice on the server", async ({ page, lang, request, shot }) => {
    const p = new AccountPages(page, lang);
    const t = p.t.info.whatsapp;
    const account = await createPhoneAccount(request, "whatsapp-pass-1");
    await page.addInitScript(
      ({ token, userId }) => {
        localStorage.setItem("token", token);
        localStorage.setItem("userId", userId);
      },
      { token: account.token, userId: account.userId },
    );
    const stored = async () =>
      (
        (await (await request.get("/api/account", { headers: { authorization: `Bearer ${account.token}` } })).json()) as {
          whatsappOptIn: boolean | null;
        }
      ).whatsappOptIn;
    await page.goto("/whatsapp-otp");
    await p.expectRtl();
    await expect(page.getByRole("heading", { name: t.question })).toBeVisible();
    await shot("whatsapp-otp");
    await expectAccessible(page, "whatsapp-otp");
    await expect(page.locator(".info-card__note")).toHaveText(t.note);
    await page.getByRole("button", { name: t.yes, exact: true }).click();
    await p.expectToast(t.savedYes);
    expect(await stored()).toBe(true);
    await expect(page.getByRole("button", { name: t.yes, exact: true })).toHaveAttribute("aria-pressed", "true");
    await page.getByRole("button", { name: t.no, exact: true }).click();
    await expect.poll(stored).toBe(false);
    await page.reload();
    await expect(page.locator(".info-card__note")).toHaveText(t.savedNo);
    await expect(page.getByRole("button", { name: t.no, exact: true })).toHaveAttribute("aria-pressed", "true");
  });

  test("message-now offers the Message Center and the stories", async ({ page, lang, shot }) => {
    const p = new AccountPages(page, lang);
    await page.goto("/message-now");
    await p.expectRtl();
    await expect(page.getByRole("link", { name: p.t.info.messageNow.messageNow })).toHaveAttribute("href", "/user-home");
    await expect(page.getByRole("link", { name: p.t.info.common.goToStories })).toHaveAttribute("href", "/");
    await shot("message-now");
    await expectAccessible(page, "message-now");
  });

  test("contact: validation, success, and a failed submission keeping the text", async ({ page, lang, shot }) => {
    const p = new AccountPages(page, lang);
    const t = p.t.info.contact;
    await page.goto("/contact");
    await p.expectRtl();
    await expect(page.getByLabel(t.gender)).toHaveValue("Not specified");
    await shot("contact");
    await expectAccessible(page, "contact");

    await p.button(t.submit).click();
    await p.expectToast(t.required);
    await shot("contact-errors");

    await page.getByLabel(t.name, { exact: true }).fill("Sara");
    // A message longer than the server keeps: the field says which limit, in the person's language; nothing is sent.
    let sent = 0;
    const countSends = (r: { url(): string }) => {
      if (r.url().endsWith("/api/contactSubmission")) sent++;
    };
    page.on("request", countSends);
    await page.getByLabel(t.message, { exact: true }).fill("x".repeat(20_000));
    await dismissToasts(page);
    await p.button(t.submit).click();
    const tooLong = lang === "ar" ? `${t.message}: 5000 حرف على الأكثر.` : `${t.message}: at most 5000 characters.`;
    await expect(page.locator(".field__error", { hasText: tooLong })).toBeVisible();
    await p.expectToast(tooLong);
    page.off("request", countSends);
    expect(sent).toBe(0);
    await page.getByLabel(t.message, { exact: true }).fill("Hello from the tests");
    await page.getByLabel(t.city, { exact: true }).fill("Amman");
    await page.getByLabel(t.phone, { exact: true }).fill("0790000000");

    await page.route("**/api/contactSubmission", (route) =>
      route.fulfill({ status: 500, contentType: "application/json", body: '{"code":"internal_error","message":"x"}' }),
    );
    await dismissToasts(page);
    await p.button(t.submit).click();
    await p.expectToast(t.failed.replace("{{message}}", p.t.common.errors.internal_error));
    await expect(page.getByLabel(t.message, { exact: true })).toHaveValue("Hello from the tests");
    await page.unroute("**/api/contactSubmission");

    let body: Record<string, unknown> | undefined;
    page.on("request", (r) => {
      if (r.url().endsWith("/api/contactSubmission")) body = r.postDataJSON();
    });
    await dismissToasts(page);
    await p.button(t.submit).click();
    await p.expectToast(t.success);
    expect(body).toMatchObject({ name: "Sara", message: "Hello from the tests", city: "Amman", gender: "Not specified" });
    await expect(page.getByLabel(t.message, { exact: true })).toHaveValue("");
  });

  test("contact: a form sent again after its answer was lost is stored once; the next form is a new one", async ({
    page,
    lang,
    request,
  }) => {
    const p = new AccountPages(page, lang);
    const t = p.t.info.contact;
    const name = unique("Lost answer ");
    const keys: unknown[] = [];
    let answers = 0;
    // The first send reaches the server, which stores it, but its answer is lost with the connection.
    await page.route("**/api/contactSubmission", async (route) => {
      keys.push(route.request().postDataJSON().idempotencyKey);
      if (answers++ > 0) return route.continue();
      await route.fetch();
      return route.abort("connectionreset");
    });
    await page.goto("/contact");
    await page.getByLabel(t.name, { exact: true }).fill(name);
    await page.getByLabel(t.message, { exact: true }).fill("Sent twice, stored once");
    await p.button(t.submit).click();
    await p.expectToast(t.failed.replace("{{message}}", p.t.common.errors.network));
    await dismissToasts(page);
    await p.button(t.submit).click();
    await p.expectToast(t.success);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(keys[1]).toBe(keys[0]);

    const stored = async () => {
      const list = await request.get(`/api/admin/contact-submissions?q=${encodeURIComponent(name)}`, {
        headers: { authorization: `Bearer ${await adminToken(request)}` },
      });
      expect(list.status()).toBe(200);
      return ((await list.json()) as { items: unknown[] }).items.length;
    };
    expect(await stored()).toBe(1);

    // After a success the same words again are a new message, with a new key.
    await dismissToasts(page);
    await page.getByLabel(t.name, { exact: true }).fill(name);
    await page.getByLabel(t.message, { exact: true }).fill("Sent twice, stored once");
    await p.button(t.submit).click();
    await p.expectToast(t.success);
    expect(keys).toHaveLength(3);
    expect(keys[2]).not.toBe(keys[0]);
    expect(await stored()).toBe(2);
  });

  for (const [path, name, key] of [
    ["/termandcondtion", "terms", "terms"],
    ["/privacypolicy", "privacy", "privacy"],
  ] as const) {
    test(`${name}: the PDF drawn on canvases, with a download link`, async ({ page, lang, shot }) => {
      const p = new AccountPages(page, lang);
      await page.goto(path);
      await p.expectRtl();
      await expect(page.getByRole("heading", { name: p.t.info.documents[key] })).toBeVisible();
      await expect(page.getByRole("link", { name: p.t.info.documents.download })).toHaveAttribute("href", /\.pdf$/);
      await expect(page.locator(".pdf-viewer[data-rendered]")).toBeVisible({ timeout: 20_000 });
      const painted = await page
        .locator("canvas.pdf-viewer__page")
        .first()
        .evaluate((c: HTMLCanvasElement) => {
          const ctx = c.getContext("2d");
          if (!ctx) return 0;
          const data = ctx.getImageData(0, 0, c.width, Math.min(c.height, 400)).data;
          let dark = 0;
          for (let i = 0; i < data.length; i += 4) if ((data[i] ?? 255) < 128) dark++;
          return dark;
        });
      expect(painted).toBeGreaterThan(50);
      // pdf.js places glyphs itself; a right-to-left canvas would scramble them.
      expect(await page.locator(".pdf-viewer").evaluate((el) => getComputedStyle(el).direction)).toBe("ltr");
      await shot(name === "terms" ? "termandcondtion" : "privacypolicy");
      // Fitted to a phone an A4 page's text is about 10 px: zooming draws it again larger, scrolling sideways.
      const first = page.locator("canvas.pdf-viewer__page").first();
      const fitted = await first.evaluate((c: HTMLCanvasElement) => c.width);
      await page.getByRole("button", { name: p.t.info.documents.zoomIn }).click();
      await page.getByRole("button", { name: p.t.info.documents.zoomIn }).click();
      await expect(page.getByText("200%")).toBeVisible();
      await expect.poll(() => first.evaluate((c: HTMLCanvasElement) => c.width)).toBeGreaterThan(fitted * 1.9);
      const pages = page.locator(".pdf-viewer__pages");
      expect(await pages.evaluate((el) => el.scrollWidth > el.clientWidth * 1.9)).toBe(true);
      await expectAccessible(page, name);
    });
  }

  test("maintenance page", async ({ page, lang, shot }) => {
    const p = new AccountPages(page, lang);
    await page.goto("/maintenance");
    await expect(page.getByRole("heading", { name: p.t.common.maintenance.title })).toBeVisible();
    await shot("maintenance");
    await expectAccessible(page, "maintenance");
  });
});

test.describe("characters", () => {
  for (const path of ["/character", "/arabic-character"] as const) {
    test(`${path}: audio bars with waveforms, auto-advance, play/pause, then on to /login`, async ({ page, lang, shot }) => {
      const p = new AccountPages(page, lang);
      const t = p.t.characters;
      await page.goto(path === "/arabic-character" && lang === "en" ? `${path}?lng=en` : path);
      await p.expectRtl();
      const bars = page.locator(".audio-bar");
      await expect(bars.first()).toBeVisible();
      const count = await bars.count();
      expect(count).toBeGreaterThan(1);
      await expect(bars.first().locator(".audio-bar__wave[data-ready]")).toBeVisible({ timeout: 15_000 });
      await expect(bars.nth(0)).toHaveClass(/audio-bar--highlighted/);
      await expect(bars.nth(1)).toHaveClass(/audio-bar--highlighted/, { timeout: 5000 });
      await shot(path === "/character" ? "character" : "arabic-character");
      await expectAccessible(page, path);

      const lastToggle = bars.nth(count - 1).getByRole("button");
      await lastToggle.click();
      await expect(lastToggle).toHaveAttribute("aria-pressed", "true");
      await expect(bars.nth(count - 1)).toHaveClass(/audio-bar--highlighted/);
      await lastToggle.click();
      await expect(lastToggle).toHaveAttribute("aria-pressed", "false");
      await expect(lastToggle).toHaveAccessibleName(
        t.play.replace(
          "{{name}}",
          (await bars
            .nth(count - 1)
            .locator(".audio-bar__name")
            .textContent()) ?? "",
        ),
      );
      // Finishing the last answer leads on: a visitor goes to /login.
      await lastToggle.click();
      await expect(page).toHaveURL(/\/login$/, { timeout: 40_000 });
    });
  }
});
