/**
 * Shares the site (spec section 2: the site origin, with the product title as title and text) through
 * the Web Share API, or copies the link where the API is missing.
 */
export type ShareResult = "shared" | "copied" | "cancelled" | "failed";

export async function shareSite(title: string): Promise<ShareResult> {
  const url = window.location.origin;
  if (typeof navigator.share === "function") {
    try {
      await navigator.share({ title, text: title, url });
      return "shared";
    } catch (error) {
      if (error instanceof DOMException && error.name === "AbortError") return "cancelled";
      // Fall through to copying: some browsers expose share() but refuse it outside a user gesture.
    }
  }
  try {
    await navigator.clipboard.writeText(url);
    return "copied";
  } catch {
    return copyWithTextarea(url) ? "copied" : "failed";
  }
}

function copyWithTextarea(text: string): boolean {
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}
