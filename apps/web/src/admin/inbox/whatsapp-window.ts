import type { ChatMessage } from "@hikaya/contracts";

/** WhatsApp lets the team answer freely for 24 hours after the family last wrote there (the server's rule too). */
const WINDOW_MS = 24 * 3600_000;

export type WhatsAppWindow = { open: true; until: string } | { open: false } | null;

/**
 * The console's WhatsApp window for a conversation: open until a time, closed, or nothing to say (a family that never
 * wrote by WhatsApp). The server's `whatsappWindowUntil` is read with the person; a WhatsApp message arriving live
 * since then moves it on, so the loaded messages count too.
 */
export function whatsappWindowOf(
  serverUntil: string | null | undefined,
  messages: readonly Pick<ChatMessage, "senderRole" | "channel" | "createdAt">[],
  now: number,
): WhatsAppWindow {
  let until = serverUntil ? Date.parse(serverUntil) : Number.NaN;
  let used = !Number.isNaN(until);
  for (const m of messages) {
    if (m.channel !== "whatsapp") continue;
    used = true;
    if (m.senderRole !== "user") continue;
    const end = Date.parse(m.createdAt) + WINDOW_MS;
    if (Number.isNaN(until) || end > until) until = end;
  }
  if (!used) return null;
  return !Number.isNaN(until) && until > now ? { open: true, until: new Date(until).toISOString() } : { open: false };
}
