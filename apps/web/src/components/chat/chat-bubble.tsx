import type { ChatMessage } from "@hikaya/contracts";
import { formatChatTime } from "../../lib/format.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { VoiceNote } from "./voice-note.tsx";

export type DeliveryState = "sending" | "queued" | "failed";

/**
 * One message. Own messages sit at the inline end (right in English, left in Arabic), the other
 * side's at the start. Text is rendered as text, never as HTML. `colleague`: on the own side (the team's) but
 * written by another operator, so it is styled apart from one's own (the console's conversation view).
 */
export function ChatBubble({
  message,
  mine,
  colleague = false,
  author,
  channel,
  delivery,
  blob,
  onRetry,
}: {
  message: Pick<ChatMessage, "messageType" | "message" | "createdAt" | "durationSeconds">;
  mine: boolean;
  colleague?: boolean;
  author?: string;
  /** How it came or went when not by the app ("WhatsApp"): the console marks it. */
  channel?: string | undefined;
  delivery?: DeliveryState;
  blob?: Blob;
  onRetry?: () => void;
}) {
  const { t, i18n } = useTranslation("messages");
  return (
    <li className={`bubble-row ${mine ? "bubble-row--mine" : "bubble-row--theirs"}`} data-delivery={delivery}>
      <div
        className={`bubble ${mine ? (colleague ? "bubble--colleague" : "bubble--mine") : "bubble--theirs"}${delivery ? " bubble--pending" : ""}`}
      >
        {author && <span className="bubble__author">{author}</span>}
        {message.messageType === "audio" ? (
          <VoiceNote
            src={blob ? undefined : message.message}
            blob={blob}
            durationSeconds={message.durationSeconds}
            label={t("voiceMessage")}
          />
        ) : (
          <p className="bubble__text" dir="auto">
            {message.message}
          </p>
        )}
        <span className="bubble__meta">
          {channel && <span className="bubble__channel">{channel}</span>}
          {delivery === "sending" && <span>{t("sending")}</span>}
          {delivery === "queued" && <span>{t("queued")}</span>}
          {delivery === "failed" && <span className="bubble__failed">{t("failed")}</span>}
          {!delivery && <time dateTime={message.createdAt}>{formatChatTime(message.createdAt, i18n.language)}</time>}
        </span>
      </div>
      {(delivery === "failed" || delivery === "queued") && onRetry && (
        <button type="button" className="bubble__retry" onClick={onRetry}>
          {t("retry")}
        </button>
      )}
    </li>
  );
}
