import { RECORDER_IDLE_HINT_MS } from "@hikaya/contracts";
import { useCallback, useEffect, useRef, useState } from "react";

/** Formats with WebM/Opus first (Chromium, Firefox), then MP4/AAC (Safari). */
const TYPES = ["audio/webm;codecs=opus", "audio/mp4;codecs=mp4a.40.2", "audio/mp4", "audio/webm", "audio/ogg;codecs=opus"];

export function supportedRecordingType(): string | undefined {
  if (typeof MediaRecorder === "undefined") return undefined;
  return TYPES.find((t) => MediaRecorder.isTypeSupported(t));
}

function releaseStream(stream: { current: MediaStream | null }) {
  for (const track of stream.current?.getTracks() ?? []) track.stop();
  stream.current = null;
}

export type RecorderState = "idle" | "starting" | "recording" | "recorded";

/**
 * Press-and-hold recorder (spec section 4): idle, recording (seconds counter), recorded (play, delete
 * to restart, save). `idleHint` turns on after 10 s without recording.
 */
export function useRecorder({ onDenied, onUnsupported }: { onDenied: () => void; onUnsupported: () => void }) {
  const [state, setState] = useState<RecorderState>("idle");
  const [seconds, setSeconds] = useState(0);
  const [take, setTake] = useState<{ blob: Blob; url: string } | null>(null);
  const [idleHint, setIdleHint] = useState(false);
  const recorder = useRef<MediaRecorder | null>(null);
  const stream = useRef<MediaStream | null>(null);
  const stopWanted = useRef(false);
  const startedAt = useRef(0);

  useEffect(() => {
    if (state !== "idle") return;
    setIdleHint(false);
    const timer = setTimeout(() => setIdleHint(true), RECORDER_IDLE_HINT_MS);
    return () => clearTimeout(timer);
  }, [state]);

  useEffect(() => {
    if (state !== "recording") return;
    const timer = setInterval(() => setSeconds(Math.floor((Date.now() - startedAt.current) / 1000)), 250);
    return () => clearInterval(timer);
  }, [state]);

  const stop = useCallback(() => {
    stopWanted.current = true;
    const r = recorder.current;
    if (r && r.state !== "inactive") r.stop();
  }, []);

  const start = useCallback(async () => {
    if (state !== "idle") return;
    const type = supportedRecordingType();
    if (!type || !navigator.mediaDevices?.getUserMedia) {
      onUnsupported();
      return;
    }
    stopWanted.current = false;
    setState("starting");
    try {
      stream.current = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch {
      setState("idle");
      onDenied();
      return;
    }
    const r = new MediaRecorder(stream.current, { mimeType: type });
    const chunks: Blob[] = [];
    r.ondataavailable = (e) => {
      if (e.data.size > 0) chunks.push(e.data);
    };
    r.onstop = () => {
      releaseStream(stream);
      recorder.current = null;
      // Upload the true container type, without codec parameters (audio/webm, audio/mp4).
      const blob = new Blob(chunks, { type: (r.mimeType || type).split(";")[0] });
      if (blob.size === 0) {
        setState("idle");
        return;
      }
      setTake({ blob, url: URL.createObjectURL(blob) });
      setSeconds(Math.max(1, Math.round((Date.now() - startedAt.current) / 1000)));
      setState("recorded");
    };
    recorder.current = r;
    startedAt.current = Date.now();
    setSeconds(0);
    r.start(250);
    setState("recording");
    // The finger was lifted while the microphone was still opening.
    if (stopWanted.current) r.stop();
  }, [state, onDenied, onUnsupported]);

  const reset = useCallback(() => {
    setTake((old) => {
      if (old) URL.revokeObjectURL(old.url);
      return null;
    });
    setSeconds(0);
    setState("idle");
  }, []);

  useEffect(
    () => () => {
      const r = recorder.current;
      if (r && r.state !== "inactive") r.stop();
      releaseStream(stream);
    },
    [],
  );

  return { state, seconds, take, idleHint, start, stop, reset };
}
