import type { APIRequestContext } from "@playwright/test";
import { consoleContext, createChatUser, INBOX_STRINGS, invitedFacilitator, storeSession } from "../pages/messages.ts";
import { expect, test } from "../support/fixtures.ts";

const ANON = async (request: APIRequestContext) =>
  ((await (await request.get("/api/settings")).json()) as { anonKey: string }).anonKey;

/** WCAG contrast of an element's text against the opaque colour behind it (walking up until a background is solid). */
function contrastOf() {
  return (sel: string) => {
    const el = document.querySelector(sel);
    if (!el) return 0;
    const probe = document.createElement("canvas").getContext("2d") as CanvasRenderingContext2D;
    const rgba = (css: string): number[] => {
      probe.clearRect(0, 0, 1, 1);
      probe.fillStyle = css;
      probe.fillRect(0, 0, 1, 1);
      const [r, g, b, a] = probe.getImageData(0, 0, 1, 1).data as unknown as number[];
      return [r ?? 0, g ?? 0, b ?? 0, (a ?? 0) / 255];
    };
    const layers: number[][] = [];
    for (let node: Element | null = el; node; node = node.parentElement) {
      const bg = rgba(getComputedStyle(node).backgroundColor);
      if ((bg[3] ?? 0) > 0) layers.push(bg);
      if ((bg[3] ?? 0) >= 1) break;
    }
    let base = [255, 255, 255];
    for (const [r = 0, g = 0, b = 0, a = 0] of layers.reverse())
      base = [r * a + (base[0] ?? 0) * (1 - a), g * a + (base[1] ?? 0) * (1 - a), b * a + (base[2] ?? 0) * (1 - a)];
    const text = rgba(getComputedStyle(el).color);
    const lum = (c: number[]) =>
      c
        .slice(0, 3)
        .map((v) => v / 255)
        .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
        .reduce((sum, v, i) => sum + v * ([0.2126, 0.7152, 0.0722][i] ?? 0), 0);
    const [l1, l2] = [lum(text), lum(base)].sort((x, y) => y - x);
    return ((l1 ?? 0) + 0.05) / ((l2 ?? 0) + 0.05);
  };
}

/**
 * Two facilitators answer one family: each sees the other's reply under the name the colleague chose, styled apart
 * from their own, and only their own as "You", in the list and in the conversation; the labels are legible (at least
 * 4.5:1).
 */
test("a colleague's reply carries their chosen name; only your own says You", async ({
  browser,
  baseURL,
  lang,
  request,
  shot,
}) => {
  const s = INBOX_STRINGS[lang];
  const unique = `${lang}-${Date.now().toString(36)}`;
  const amal = await invitedFacilitator(request, `e2e-attr-amal-${unique}@hikaya.test`);
  const bilal = await invitedFacilitator(request, `e2e-attr-bilal-${unique}@hikaya.test`);
  const family = await createChatUser(request);
  const sent = await request.post("/api/message/send", {
    headers: { authorization: `Bearer ${family.token}` },
    data: { message: `Hello ${unique}`, messageType: "text" },
  });
  expect(sent.status(), await sent.text()).toBe(200);

  // Amal names herself for the console (what the Team page's name field sends), then replies.
  const named = await request.put("/auth/v1/user", {
    headers: { authorization: `Bearer ${amal.token}`, apikey: await ANON(request) },
    data: { data: { display_name: "Amal N." } },
  });
  expect(named.status(), await named.text()).toBe(200);
  const reply = (who: { token: string }, message: string) =>
    request.post(`/api/admin/conversations/${family.userId}/messages`, {
      headers: { authorization: `Bearer ${who.token}` },
      data: { message, messageType: "text" },
    });
  expect((await reply(amal, "Reply from Amal")).status()).toBe(200);

  const context = await consoleContext(browser, baseURL ?? "", lang);
  await storeSession(context, bilal, lang, "console");
  const page = await context.newPage();
  const conversation = `/admin/inbox/${family.userId}?q=${encodeURIComponent(`+962${family.phone}`)}`;
  await page.goto(conversation);
  const item = page.locator(".inbox__items").getByRole("listitem");
  await expect(item).toHaveCount(1);
  await expect(item.locator(".inbox__you")).toHaveText(s.colleague.replace("{{name}}", "Amal N."));
  // A colleague's reply is not styled as one's own: Bilal has written nothing yet, so no bubble is his.
  const author = page.locator(".bubble--colleague .bubble__author").last();
  await expect(author).toHaveText("Amal N.");
  await expect(page.locator(".bubble--mine")).toHaveCount(0);
  expect(await page.evaluate(contrastOf(), ".inbox__item--active .inbox__you")).toBeGreaterThanOrEqual(4.5);
  expect(await page.evaluate(contrastOf(), ".bubble--colleague .bubble__author")).toBeGreaterThanOrEqual(4.5);
  expect(await page.evaluate(contrastOf(), ".bubble--colleague .bubble__text")).toBeGreaterThanOrEqual(4.5);
  await shot("inbox-colleague-reply");

  expect((await reply(bilal, "Reply from Bilal")).status()).toBe(200);
  await page.goto(conversation);
  await expect(item.locator(".inbox__you")).toHaveText(s.you);
  await expect(page.locator(".bubble--mine .bubble__author").last()).toHaveText(s.youAuthor);
  expect(await page.evaluate(contrastOf(), ".bubble--mine .bubble__author")).toBeGreaterThanOrEqual(4.5);
  await expect(page.locator(".bubble--colleague .bubble__author")).toHaveText(["Amal N."]);
  await context.close();
});
