// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { initI18n, loadNamespaces, setLanguage } from "../../lib/i18n.ts";
import { ChatComposer } from "./chat-composer.tsx";
import { insertReply, matchingReplies } from "./quick-replies.ts";

beforeAll(async () => {
  await initI18n();
  await loadNamespaces("messages");
  await setLanguage("en");
});
afterEach(cleanup);

const replies = [
  { id: "1", title: "Welcome", text: "أهلًا بك في حكاية!" },
  { id: "2", title: "Opening hours", text: "نحن هنا من التاسعة صباحًا." },
];

function composer(sent: string[] = [], withReplies = true) {
  render(
    <ChatComposer
      onSendText={(text) => sent.push(text)}
      onSendVoice={() => undefined}
      onMicError={() => undefined}
      quickReplies={withReplies ? replies : undefined}
    />,
  );
  return screen.getByRole(withReplies ? "combobox" : "textbox", { name: "Your message here" }) as HTMLInputElement;
}

describe("saved replies in the composer", () => {
  it("lists them after a leading /, filtered as one types; the arrows and Enter insert one in place of the /…", () => {
    const sent: string[] = [];
    const input = composer(sent);
    expect(screen.queryByRole("listbox")).toBeNull();
    fireEvent.change(input, { target: { value: "/" } });
    expect(screen.getAllByRole("option").map((o) => o.textContent)).toHaveLength(2);
    fireEvent.change(input, { target: { value: "/hour" } });
    expect(screen.getAllByRole("option")).toHaveLength(1);
    expect(input.getAttribute("aria-expanded")).toBe("true");
    fireEvent.keyDown(input, { key: "ArrowDown" });
    fireEvent.keyDown(input, { key: "Enter" });
    expect(input.value).toBe("نحن هنا من التاسعة صباحًا.");
    expect(screen.queryByRole("listbox")).toBeNull();
    // Enter picked the reply; it did not send the "/hour" draft.
    expect(sent).toEqual([]);
  });

  it("opens the whole list from its button, a tap inserts one, Escape closes it until the text changes", () => {
    const input = composer();
    fireEvent.click(screen.getByRole("button", { name: "Saved replies" }));
    const options = screen.getAllByRole("option");
    expect(options).toHaveLength(2);
    fireEvent.click(options[0] as HTMLElement);
    expect(input.value).toBe("أهلًا بك في حكاية!");
    fireEvent.change(input, { target: { value: "/w" } });
    fireEvent.keyDown(input, { key: "Escape" });
    expect(screen.queryByRole("listbox")).toBeNull();
    fireEvent.change(input, { target: { value: "/we" } });
    expect(screen.getAllByRole("option")).toHaveLength(1);
    fireEvent.change(input, { target: { value: "/nothing like it" } });
    expect(screen.queryAllByRole("option")).toHaveLength(0);
    expect(screen.getByText("No saved reply matches.")).toBeTruthy();
  });

  it("is not there on the family's side (no replies passed): a / is just text", () => {
    const sent: string[] = [];
    const input = composer(sent, false);
    expect(screen.queryByRole("button", { name: "Saved replies" })).toBeNull();
    fireEvent.change(input, { target: { value: "/shrug" } });
    expect(screen.queryByRole("listbox")).toBeNull();
    fireEvent.submit(input.closest("form") as HTMLFormElement);
    expect(sent).toEqual(["/shrug"]);
  });
});

describe("quick-replies helpers", () => {
  it("matches titles and texts case-insensitively; an empty query lists all", () => {
    expect(matchingReplies(replies, "").map((r) => r.id)).toEqual(["1", "2"]);
    expect(matchingReplies(replies, " WEL ").map((r) => r.id)).toEqual(["1"]);
    expect(matchingReplies(replies, "التاسعة").map((r) => r.id)).toEqual(["2"]);
  });

  it("replaces a /… draft or an empty one, and follows other text", () => {
    const reply = replies[0] as (typeof replies)[number];
    expect(insertReply("/wel", reply)).toBe(reply.text);
    expect(insertReply("  ", reply)).toBe(reply.text);
    expect(insertReply("Dear Layla,", reply)).toBe(`Dear Layla, ${reply.text}`);
  });
});
