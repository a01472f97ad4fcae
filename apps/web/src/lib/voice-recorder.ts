/**
 * Hold-to-record voice notes with MediaRecorder. `start()` asks for the microphone (spec section 8:
 * the permission is needed) and `stop()` resolves with the recording and its length in seconds.
 */
import { useCallback, useEffect, useRef, useState } from "react";

export interface VoiceRecording {
  blob: Blob;
  durationSeconds: number;
  mimeType: string;
}

export type RecorderState = "idle" | "starting" | "recording";

export class MicrophoneError extends Error {}

const PREFERRED_TYPES = ["audio/webm;codecs=opus", "audio/webm", "audio/mp4", "audio/ogg;codecs=opus"];

function pickMimeType(): string | undefined {
  if (typeof MediaRecorder === "undefined") return undefined;
  return PREFERRED_TYPES.find((t) => MediaRecorder.isTypeSupported(t));
}

export function useVoiceRecorder() {
  const [state, setState] = useState<RecorderState>("idle");
  const [elapsed, setElapsed] = useState(0);
  const recorder = useRef<MediaRecorder | null>(null);
  const chunks = useRef<Blob[]>([]);
  const startedAt = useRef(0);
  const ticker = useRef<number | null>(null);
  const stopWanted = useRef(false);
  const finished = useRef<((r: VoiceRecording | null) => void) | null>(null);

  const cleanup = useCallback(() => {
    if (ticker.current) window.clearInterval(ticker.current);
    ticker.current = null;
    recorder.current?.stream.getTracks().forEach((t) => {
      t.stop();
    });
    recorder.current = null;
    setState("idle");
    setElapsed(0);
  }, []);

  useEffect(() => cleanup, [cleanup]);

  const stop = useCallback((): Promise<VoiceRecording | null> => {
    const r = recorder.current;
    if (!r) {
      stopWanted.current = true;
      return Promise.resolve(null);
    }
    return new Promise((resolve) => {
      finished.current = resolve;
      if (r.state !== "inactive") r.stop();
    });
  }, []);

  const start = useCallback(async () => {
    if (recorder.current || state !== "idle") return;
    if (!navigator.mediaDevices?.getUserMedia || typeof MediaRecorder === "undefined") throw new MicrophoneError("unsupported");
    stopWanted.current = false;
    setState("starting");
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch {
      setState("idle");
      throw new MicrophoneError("denied");
    }
    const mimeType = pickMimeType();
    const r = new MediaRecorder(stream, mimeType ? { mimeType } : undefined);
    chunks.current = [];
    r.ondataavailable = (e) => {
      if (e.data.size > 0) chunks.current.push(e.data);
    };
    r.onstop = () => {
      const durationSeconds = (performance.now() - startedAt.current) / 1000;
      const type = r.mimeType || mimeType || "audio/webm";
      const blob = new Blob(chunks.current, { type });
      cleanup();
      const done = finished.current;
      finished.current = null;
      done?.(blob.size > 0 && durationSeconds >= 0.3 ? { blob, durationSeconds, mimeType: type } : null);
    };
    recorder.current = r;
    startedAt.current = performance.now();
    r.start(250);
    setState("recording");
    ticker.current = window.setInterval(() => setElapsed((performance.now() - startedAt.current) / 1000), 250);
    // The finger was lifted while the microphone was still being opened.
    if (stopWanted.current) r.stop();
  }, [cleanup, state]);

  return { state, elapsed, start, stop };
}
