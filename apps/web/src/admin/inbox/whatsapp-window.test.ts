import type { ChatMessage } from "@hikaya/contracts";
import { describe, expect, it } from "vitest";
import { whatsappWindowOf } from "./whatsapp-window.ts";

const NOW = Date.parse("2026-03-02T12:00:00Z");
const msg = (senderRole: "user" | "facilitator", createdAt: string, channel?: "whatsapp") =>
  ({ senderRole, createdAt, ...(channel ? { channel } : {}) }) as ChatMessage;

describe("the console's WhatsApp window", () => {
  it("says nothing for a family that never wrote by WhatsApp", () => {
    expect(whatsappWindowOf(null, [msg("user", "2026-03-02T11:00:00Z")], NOW)).toBeNull();
  });

  it("is open until the server's time, moved on by a WhatsApp message that arrived live", () => {
    expect(whatsappWindowOf("2026-03-02T18:05:00.000Z", [], NOW)).toEqual({ open: true, until: "2026-03-02T18:05:00.000Z" });
    const live = [msg("user", "2026-03-02T11:30:00Z", "whatsapp")];
    expect(whatsappWindowOf("2026-03-02T18:05:00.000Z", live, NOW)).toEqual({ open: true, until: "2026-03-03T11:30:00.000Z" });
  });

  it("is closed 24 hours after the family's last WhatsApp message, whatever the team sent since", () => {
    const old = [msg("user", "2026-03-01T11:00:00Z", "whatsapp"), msg("facilitator", "2026-03-02T11:00:00Z", "whatsapp")];
    expect(whatsappWindowOf(null, old, NOW)).toEqual({ open: false });
  });
});
