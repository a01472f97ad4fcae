import { type FormEvent, useState } from "react";
import { formatDuration } from "../../lib/format.ts";
import { useTranslation } from "../../lib/i18n.ts";
import type { Recording } from "../../lib/recorder.ts";
import { HoldToRecord } from "./hold-to-record.tsx";
import { VoiceNote } from "./voice-note.tsx";

/**
 * Text field ("Your message here"), hold-to-record mic and send button. A finished recording waits
 * beside the field (play it, or discard it) until Send; Send with no text and no recording does nothing.
 */
export function ChatComposer({
  onSendText,
  onSendVoice,
  onMicError,
}: {
  onSendText(text: string): void;
  onSendVoice(recording: Recording): void;
  onMicError(): void;
}) {
  const { t } = useTranslation("messages");
  const [text, setText] = useState("");
  const [recording, setRecording] = useState<Recording | null>(null);

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
            className="composer__input"
            placeholder={t("placeholder")}
            aria-label={t("placeholder")}
            value={text}
            onChange={(e) => setText(e.target.value)}
            maxLength={4000}
            dir="auto"
            enterKeyHint="send"
          />
        )}
      </div>
      <button type="submit" className="composer__send" aria-label={t("send")}>
        <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" className="icon-directional">
          <path d="M3 20.5l18-8.5L3 3.5l2.5 7L15 12l-9.5 1.5z" fill="currentColor" />
        </svg>
      </button>
    </form>
  );
}
