import { consoleContext, createChatUser, INBOX_STRINGS, invitedFacilitator, storeSession } from "../pages/messages.ts";
import { expect, test } from "../support/fixtures.ts";

/**
 * Two facilitators with the inbox open: when one takes a conversation ("Assign to me") or releases it, the other's
 * list and open conversation show it without a reload (the live stream's assignment event).
 */
test("an assignment made by one facilitator shows live in another's open inbox", async ({
  browser,
  baseURL,
  lang,
  request,
  shot,
}) => {
  const s = INBOX_STRINGS[lang];
  const unique = `${lang}-${Date.now().toString(36)}`;
  const amalEmail = `e2e-assign-amal-${unique}@hikaya.test`;
  const [amal, bilal] = [
    await invitedFacilitator(request, amalEmail),
    await invitedFacilitator(request, `e2e-assign-bilal-${unique}@hikaya.test`),
  ];
  const family = await createChatUser(request);
  const sent = await request.post("/api/message/send", {
    headers: { authorization: `Bearer ${family.token}` },
    data: { message: `Assign me ${unique}`, messageType: "text" },
  });
  expect(sent.status(), await sent.text()).toBe(200);

  const [amalContext, bilalContext] = [
    await consoleContext(browser, baseURL ?? "", lang),
    await consoleContext(browser, baseURL ?? "", lang),
  ];
  await storeSession(amalContext, amal, lang, "console");
  await storeSession(bilalContext, bilal, lang, "console");
  const [amalPage, bilalPage] = [await amalContext.newPage(), await bilalContext.newPage()];
  const conversation = `/admin/inbox/${family.userId}?q=${encodeURIComponent(`+962${family.phone}`)}`;
  await bilalPage.goto(conversation);
  await amalPage.goto(conversation);

  // Bilal's list (filtered to this family) and the conversation open beside it.
  const item = bilalPage.locator(".inbox__items").getByRole("listitem");
  await expect(item).toHaveCount(1);
  await expect(bilalPage.getByRole("button", { name: s.assignToMe })).toBeVisible();
  await expect(item.locator(".inbox__assignee")).toHaveCount(0);

  await amalPage.getByRole("button", { name: s.assignToMe }).click();
  await expect(amalPage.getByRole("button", { name: s.unassign })).toBeVisible();
  const takenByAmal = s.assignedTo.replace("{{name}}", amalEmail);
  await expect(item.locator(".inbox__assignee")).toHaveText(takenByAmal);
  await expect(bilalPage.locator(".inbox-conversation__assign")).toContainText(takenByAmal);
  await shot("inbox-assigned-elsewhere");

  await amalPage.getByRole("button", { name: s.unassign }).click();
  await expect(amalPage.getByRole("button", { name: s.assignToMe })).toBeVisible();
  await expect(item.locator(".inbox__assignee")).toHaveCount(0);
  await expect(bilalPage.locator(".inbox-conversation__assign")).not.toContainText(takenByAmal);

  await amalContext.close();
  await bilalContext.close();
});
