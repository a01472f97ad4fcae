/**
 * Nothing unseen: the console's tab title carries the number of conversations with unread messages, a colleague
 * handing this operator a conversation shows a notice, and, while the tab is hidden, a family's message to a
 * conversation that is this operator's or nobody's raises a desktop notification (once permission was given from
 * the inbox's button: never asked on load).
 */
import type { ChatMessage, ConversationPerson } from "@hikaya/contracts";
import { useEffect, useRef } from "react";
import { useTranslation } from "../lib/i18n.ts";
import { setTitleCount } from "../lib/title-count.ts";
import { toast } from "../lib/toast.tsx";
import { consoleApi } from "./api.ts";
import { consoleStream } from "./console-stream.ts";

type Translate = ReturnType<typeof useTranslation>["t"];

async function notifyIfUnseen(message: ChatMessage, me: string, t: Translate, open: (path: string) => void) {
  if (message.senderRole !== "user" || document.visibilityState !== "hidden") return;
  if (typeof Notification === "undefined" || Notification.permission !== "granted") return;
  const person = await consoleApi<ConversationPerson>(`/admin/conversations/${encodeURIComponent(message.conversation)}/person`);
  if (person.assignedTo && person.assignedTo.userId !== me) return;
  const name = person.name || person.phone || person.email || t("alerts.someone");
  const notification = new Notification(t("alerts.newMessage", { name }), {
    body: message.messageType === "audio" ? t("alerts.voiceMessage") : message.message,
    // Every console tab hears the message: one notification per conversation, the newest replacing the last.
    tag: `hikaya-inbox-${message.conversation}`,
  });
  notification.onclick = () => {
    window.focus();
    open(`/admin/inbox/${message.conversation}`);
    notification.close();
  };
}

export function useInboxAlerts(me: string | null, unread: number, open: (path: string) => void) {
  const { t } = useTranslation("admin");
  // The latest navigate, without subscribing again each time it changes.
  const opener = useRef(open);
  useEffect(() => {
    opener.current = open;
  }, [open]);
  useEffect(() => {
    setTitleCount(me ? unread : 0);
  }, [me, unread]);
  useEffect(() => () => setTitleCount(0), []);
  useEffect(() => {
    if (!me) return;
    return consoleStream.subscribe({
      onMessage: (message) => void notifyIfUnseen(message, me, t, (path) => opener.current(path)).catch(() => undefined),
      onAssignment: ({ assignee, by }) => {
        if (assignee === me && by && by !== me) toast.info(t("alerts.handedToYou"));
      },
    });
  }, [me, t]);
}
