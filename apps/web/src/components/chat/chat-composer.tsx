import { type FormEvent, type KeyboardEvent, useId, useRef, useState } from "react";
import { formatDuration } from "../../lib/format.ts";
import { useTranslation } from "../../lib/i18n.ts";
import type { Recording } from "../../lib/recorder.ts";
import { HoldToRecord } from "./hold-to-record.tsx";
import { insertReply, matchingReplies, type QuickReply } from "./quick-replies.ts";
import { QuickReplyMenu } from "./quick-reply-menu.tsx";
import { VoiceNote } from "./voice-note.tsx";

/**
 * Text field ("Your message here"), hold-to-record mic and send button. A finished recording waits
 * beside the field (play it, or discard it) until Send; Send with no text and no recording does nothing.
 * With `quickReplies` (the console), typing "/" first or the button beside the field lists them, filtered as one types.
 */
export function ChatComposer({
  onSendText,
  onSendVoice,
  onMicError,
  quickReplies,
}: {
  onSendText(text: string): void;
  onSendVoice(recording: Recording): void;
  onMicError(): void;
  quickReplies?: readonly QuickReply[];
}) {
  const { t } = useTranslation("messages");
  const [text, setText] = useState("");
  const [recording, setRecording] = useState<Recording | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const menuId = useId();
  // Opened by the button, or by a "/" typed first; Escape closes it until the text changes.
  const [menu, setMenu] = useState<"closed" | "button" | "dismissed">("closed");
  const [active, setActive] = useState(0);
  const slash = text.startsWith("/");
  const open = quickReplies !== undefined && !recording && (menu === "button" || (slash && menu !== "dismissed"));
  const shown = open ? matchingReplies(quickReplies, slash ? text.slice(1) : "") : [];
  const current = Math.min(active, Math.max(shown.length - 1, 0));

  function pick(reply: QuickReply) {
    setText((draft) => insertReply(draft, reply));
    setMenu("closed");
    setActive(0);
    input.current?.focus();
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (!open) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive(shown.length === 0 ? 0 : (current + step + shown.length) % shown.length);
    } else if (event.key === "Enter" && shown[current]) {
      event.preventDefault();
      pick(shown[current]);
    } else if (event.key === "Escape") {
      event.preventDefault();
      setMenu("dismissed");
    }
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = text.trim();
    if (!trimmed && !recording) return;
    if (recording) onSendVoice(recording);
    if (trimmed) onSendText(trimmed);
    setRecording(null);
    setText("");
  }

  return (
    <form className="composer" onSubmit={submit}>
      {open && <QuickReplyMenu id={menuId} replies={shown} active={current} onPick={pick} />}
      <HoldToRecord onRecorded={setRecording} onMicError={onMicError} />
      <div className="composer__field">
        {recording ? (
          <div className="composer__take">
            <VoiceNote blob={recording.blob} durationSeconds={recording.durationSeconds} label={t("yourRecording")} />
            <span className="visually-hidden">{formatDuration(recording.durationSeconds)}</span>
            <button type="button" className="composer__discard" onClick={() => setRecording(null)} aria-label={t("discard")}>
              <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
                <path d="M6 6l12 12M18 6L6 18" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round" />
              </svg>
            </button>
          </div>
        ) : (
          <input
            ref={input}
            className="composer__input"
            placeholder={t("placeholder")}
            aria-label={t("placeholder")}
            value={text}
            onChange={(e) => {
              setText(e.target.value);
              setActive(0);
              if (menu === "dismissed") setMenu("closed");
            }}
            onKeyDown={onKeyDown}
            maxLength={4000}
            dir="auto"
            enterKeyHint="send"
            {...(quickReplies && {
              role: "combobox",
              "aria-autocomplete": "list" as const,
              "aria-expanded": open,
              "aria-controls": menuId,
              "aria-activedescendant": open && shown.length > 0 ? `${menuId}-${current}` : undefined,
            })}
          />
        )}
      </div>
      {quickReplies && !recording && (
        <button
          type="button"
          className="composer__replies"
          aria-label={t("savedReplies")}
          aria-expanded={open}
          aria-controls={menuId}
          onClick={() => {
            setMenu(open ? "closed" : "button");
            setActive(0);
            input.current?.focus();
          }}
        >
          <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
            <path d="M5 4h14v12H9l-4 4z" fill="none" stroke="currentColor" strokeWidth="2" strokeLinejoin="round" />
            <path d="M9 8h6M9 12h4" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
          </svg>
        </button>
      )}
      <button type="submit" className="composer__send" aria-label={t("send")}>
        <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" className="icon-directional">
          <path d="M3 20.5l18-8.5L3 3.5l2.5 7L15 12l-9.5 1.5z" fill="currentColor" />
        </svg>
      </button>
    </form>
  );
}
