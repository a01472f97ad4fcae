/**
 * The notice the server puts above a prerendered screen when its form was posted without scripts (server
 * modules/web/form-page.ts). It sits outside the app's root, so React leaves it; it goes at the person's next step:
 * another submit (whose answer the app shows itself) or another screen.
 */
export function dropFormNoticeOnNextStep() {
  const notice = document.getElementById("form-notice");
  if (!notice) return;
  const path = window.location.pathname;
  const drop = () => {
    notice.remove();
    document.removeEventListener("submit", drop, true);
    document.removeEventListener("click", onClick, true);
  };
  // The router moves by history.pushState, which fires no event: a click that changed the path is the sign.
  const onClick = () => setTimeout(() => window.location.pathname !== path && drop());
  document.addEventListener("submit", drop, true);
  document.addEventListener("click", onClick, true);
}

/**
 * The values the server put back into a page it showed again are the boxes' default values (HTML attributes), which
 * React resets while hydrating; made the boxes' own values first, they stay, and the fields hand them to the form
 * (components/form-fields.tsx `useValueTypedBeforeScripts`). Only on such a page: before hydration.
 */
export function keepValuesThePageCameWith() {
  if (!document.getElementById("form-notice")) return;
  for (const box of document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>("#root input, #root textarea")) {
    if (box instanceof HTMLInputElement && !["text", "tel", "email", "search"].includes(box.type)) continue;
    // Setting the value makes it the box's own, no longer its default.
    const kept = box.value;
    box.value = kept;
  }
}
