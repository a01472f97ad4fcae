import { type KeyboardEvent, type PointerEvent, useRef } from "react";
import { formatDuration } from "../../lib/format.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { MicrophoneError, type Recording, useRecorder } from "../../lib/recorder.ts";

/**
 * The hold-to-record microphone: press and hold (pointer, or Space/Enter held down) to record,
 * release to finish. Pointer capture keeps the recording going if the finger slides off the button.
 */
export function HoldToRecord({
  onRecorded,
  onMicError,
  disabled,
}: {
  onRecorded(recording: Recording): void;
  onMicError(): void;
  disabled?: boolean;
}) {
  const { t } = useTranslation("messages");
  const recorder = useRecorder();
  const holding = useRef(false);

  async function begin() {
    if (holding.current || disabled) return;
    holding.current = true;
    try {
      await recorder.start();
    } catch (error) {
      holding.current = false;
      if (error instanceof MicrophoneError) onMicError();
    }
  }

  async function end() {
    if (!holding.current) return;
    holding.current = false;
    const recording = await recorder.stop();
    // A tap is not a voice note.
    if (recording && recording.durationSeconds >= 0.3) onRecorded(recording);
  }

  const recording = recorder.state !== "idle";
  return (
    <>
      <button
        type="button"
        className={`composer__mic${recording ? " composer__mic--recording" : ""}`}
        aria-label={t("holdToRecord")}
        aria-pressed={recording}
        disabled={disabled}
        onPointerDown={(e: PointerEvent<HTMLButtonElement>) => {
          e.preventDefault();
          e.currentTarget.setPointerCapture?.(e.pointerId);
          void begin();
        }}
        onPointerUp={() => void end()}
        onPointerCancel={() => void end()}
        onContextMenu={(e) => e.preventDefault()}
        onKeyDown={(e: KeyboardEvent<HTMLButtonElement>) => {
          if ((e.key === " " || e.key === "Enter") && !e.repeat) {
            e.preventDefault();
            void begin();
          }
        }}
        onKeyUp={(e: KeyboardEvent<HTMLButtonElement>) => {
          if (e.key === " " || e.key === "Enter") {
            e.preventDefault();
            void end();
          }
        }}
        onBlur={() => void end()}
      >
        <svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">
          <rect x="9" y="3" width="6" height="11" rx="3" fill="currentColor" />
          <path d="M6 11a6 6 0 0 0 12 0M12 17v4M9 21h6" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
        </svg>
      </button>
      {recording && (
        <output className="composer__recording" aria-live="polite">
          <span className="composer__dot" aria-hidden="true" />
          {t("recording")} <span className="ltr">{formatDuration(recorder.elapsed)}</span>
        </output>
      )}
    </>
  );
}
