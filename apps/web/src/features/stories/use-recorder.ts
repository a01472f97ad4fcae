import { RECORDER_IDLE_HINT_MS } from "@hikaya/contracts";
import { useCallback, useEffect, useState } from "react";
import { MicrophoneError, useRecorder } from "../../lib/recorder.ts";

export type TakeState = "idle" | "starting" | "recording" | "recorded";

/**
 * The story recording screen's press-and-hold take (spec section 4) on the app's one recorder: idle,
 * recording (seconds counter), recorded (play, delete to restart, save). `idleHint` turns on after 10 s
 * without recording.
 */
export function useStoryTake({ onDenied, onUnsupported }: { onDenied: () => void; onUnsupported: () => void }) {
  const recorder = useRecorder();
  const [take, setTake] = useState<{ blob: Blob; url: string; seconds: number } | null>(null);
  const [idleHint, setIdleHint] = useState(false);
  const state: TakeState = take ? "recorded" : recorder.state;

  useEffect(() => {
    if (state !== "idle") return;
    setIdleHint(false);
    const timer = setTimeout(() => setIdleHint(true), RECORDER_IDLE_HINT_MS);
    return () => clearTimeout(timer);
  }, [state]);

  const start = useCallback(async () => {
    try {
      await recorder.start();
    } catch (error) {
      if (error instanceof MicrophoneError && error.reason === "unsupported") onUnsupported();
      else onDenied();
    }
  }, [recorder.start, onDenied, onUnsupported]);

  const stop = useCallback(async () => {
    const recording = await recorder.stop();
    if (recording)
      setTake({
        blob: recording.blob,
        url: URL.createObjectURL(recording.blob),
        seconds: Math.max(1, Math.round(recording.durationSeconds)),
      });
  }, [recorder.stop]);

  const reset = useCallback(() => {
    setTake((old) => {
      if (old) URL.revokeObjectURL(old.url);
      return null;
    });
  }, []);

  const seconds = take ? take.seconds : Math.floor(recorder.elapsed);
  return { state, seconds, take, idleHint, start, stop, reset };
}
