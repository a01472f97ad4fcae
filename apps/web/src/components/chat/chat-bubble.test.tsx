// @vitest-environment jsdom
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { initI18n, loadNamespaces, setLanguage } from "../../lib/i18n.ts";
import { ChatBubble } from "./chat-bubble.tsx";

beforeAll(async () => {
  await initI18n();
  await loadNamespaces("messages");
  await setLanguage("en");
});
afterEach(cleanup);

const message = {
  messageType: "text" as const,
  message: "We are here",
  createdAt: "2026-11-28T10:00:00.000Z",
  durationSeconds: null,
};
const bubbleOf = (text: string) => screen.getByText(text).closest(".bubble") as HTMLElement;

describe("a team member's reply in the console", () => {
  it("one's own is on the team's side in one's own colour; a colleague's on the same side, styled apart, named", () => {
    render(
      <ul>
        <ChatBubble message={message} mine author="You" />
        <ChatBubble message={{ ...message, message: "Hello from Amal" }} mine colleague author="Amal N." />
      </ul>,
    );
    expect(bubbleOf("We are here").className).toBe("bubble bubble--mine");
    const colleague = bubbleOf("Hello from Amal");
    expect(colleague.className).toBe("bubble bubble--colleague");
    expect(colleague.parentElement?.className).toBe("bubble-row bubble-row--mine");
    expect(colleague.querySelector(".bubble__author")?.textContent).toBe("Amal N.");
  });

  it("a family's message stays on the other side whatever it is told about colleagues", () => {
    render(
      <ul>
        <ChatBubble message={message} mine={false} colleague />
      </ul>,
    );
    expect(bubbleOf("We are here").className).toBe("bubble bubble--theirs");
  });
});
