/**
 * The one microphone recorder (MediaRecorder), used by the story recording screen and by voice notes
 * in the chat and the console. `start()` asks for the microphone (spec section 8: the permission is
 * needed) and throws MicrophoneError when it cannot record; `stop()` resolves with the recording.
 */
import { useCallback, useEffect, useRef, useState } from "react";

export interface Recording {
  blob: Blob;
  durationSeconds: number;
  /** The container type without codec parameters (audio/webm, audio/ogg, audio/mp4), as uploaded. */
  mimeType: string;
}

export type RecorderState = "idle" | "starting" | "recording";

export class MicrophoneError extends Error {
  readonly reason: "denied" | "unsupported";
  constructor(reason: "denied" | "unsupported") {
    super(reason);
    this.reason = reason;
  }
}

/** WebM/Opus (Chromium, Firefox), then Ogg/Opus, then MP4/AAC (Safari). */
const RECORDING_TYPES = [
  "audio/webm;codecs=opus",
  "audio/webm",
  "audio/ogg;codecs=opus",
  "audio/mp4;codecs=mp4a.40.2",
  "audio/mp4",
];

function supportedRecordingType(): string | undefined {
  if (typeof MediaRecorder === "undefined") return undefined;
  return RECORDING_TYPES.find((t) => MediaRecorder.isTypeSupported(t));
}

export function useRecorder() {
  const [state, setState] = useState<RecorderState>("idle");
  /** Seconds since recording started, updated four times a second. */
  const [elapsed, setElapsed] = useState(0);
  const recorder = useRef<MediaRecorder | null>(null);
  const startedAt = useRef(0);
  const ticker = useRef<number | null>(null);
  const stopWanted = useRef(false);
  const finished = useRef<((r: Recording | null) => void) | null>(null);

  const release = useCallback(() => {
    if (ticker.current) window.clearInterval(ticker.current);
    ticker.current = null;
    for (const track of recorder.current?.stream.getTracks() ?? []) track.stop();
    recorder.current = null;
    setState("idle");
  }, []);

  useEffect(
    () => () => {
      const r = recorder.current;
      if (r && r.state !== "inactive") r.stop();
      release();
    },
    [release],
  );

  const stop = useCallback((): Promise<Recording | null> => {
    const r = recorder.current;
    if (!r) {
      // The finger was lifted while the microphone was still opening: start() stops it.
      stopWanted.current = true;
      return new Promise((resolve) => {
        finished.current = resolve;
      });
    }
    return new Promise((resolve) => {
      finished.current = resolve;
      if (r.state !== "inactive") r.stop();
    });
  }, []);

  const start = useCallback(async () => {
    if (recorder.current || state !== "idle") return;
    const type = supportedRecordingType();
    if (!type || !navigator.mediaDevices?.getUserMedia) throw new MicrophoneError("unsupported");
    stopWanted.current = false;
    setState("starting");
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch {
      setState("idle");
      const done = finished.current;
      finished.current = null;
      done?.(null);
      throw new MicrophoneError("denied");
    }
    const r = new MediaRecorder(stream, { mimeType: type });
    const chunks: Blob[] = [];
    r.ondataavailable = (e) => {
      if (e.data.size > 0) chunks.push(e.data);
    };
    r.onstop = () => {
      const durationSeconds = (performance.now() - startedAt.current) / 1000;
      const mimeType = (r.mimeType || type).split(";")[0] ?? "audio/webm";
      const blob = new Blob(chunks, { type: mimeType });
      release();
      const done = finished.current;
      finished.current = null;
      done?.(blob.size > 0 ? { blob, durationSeconds, mimeType } : null);
    };
    recorder.current = r;
    startedAt.current = performance.now();
    setElapsed(0);
    r.start(250);
    setState("recording");
    ticker.current = window.setInterval(() => setElapsed((performance.now() - startedAt.current) / 1000), 250);
    if (stopWanted.current) r.stop();
  }, [release, state]);

  return { state, elapsed, start, stop };
}
