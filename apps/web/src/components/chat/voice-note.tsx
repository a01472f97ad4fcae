import { useEffect, useRef, useState } from "react";
import { errorText } from "../../lib/errors.ts";
import { formatDuration } from "../../lib/format.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";
import { usePrivateMediaFetch } from "./private-media.tsx";

/**
 * A voice note: play/pause, progress and length. Private notes (under /api/messages/audio/…) need the
 * access token, which an <audio> element cannot send, so they are fetched once with it and played
 * from memory; public audio (the greeting) streams directly. A local recording plays from its Blob.
 */
export function VoiceNote({
  src,
  blob,
  durationSeconds,
  label,
}: {
  src?: string;
  blob?: Blob;
  durationSeconds: number | null;
  label: string;
}) {
  const { t } = useTranslation("messages");
  const fetchPrivate = usePrivateMediaFetch();
  const audio = useRef<HTMLAudioElement | null>(null);
  const objectUrl = useRef<string | null>(null);
  const [playing, setPlaying] = useState(false);
  const [loading, setLoading] = useState(false);
  const [position, setPosition] = useState(0);
  const [duration, setDuration] = useState(durationSeconds ?? 0);

  // Public audio (the greeting) has no stored length: read it from the file's metadata.
  useEffect(() => {
    if (!src || src.startsWith("/api/") || durationSeconds !== null) return;
    const probe = new Audio();
    probe.preload = "metadata";
    probe.onloadedmetadata = () => {
      if (Number.isFinite(probe.duration)) setDuration(probe.duration);
    };
    probe.src = src;
    return () => {
      probe.onloadedmetadata = null;
      probe.removeAttribute("src");
    };
  }, [src, durationSeconds]);

  useEffect(
    () => () => {
      audio.current?.pause();
      if (objectUrl.current) URL.revokeObjectURL(objectUrl.current);
    },
    [],
  );

  async function sourceUrl(): Promise<string> {
    if (blob) {
      objectUrl.current ??= URL.createObjectURL(blob);
      return objectUrl.current;
    }
    if (!src) throw new Error("no source");
    if (!src.startsWith("/api/")) return src;
    if (objectUrl.current) return objectUrl.current;
    const res = await fetchPrivate(src);
    if (!res.ok) throw new Error(`audio ${res.status}`);
    objectUrl.current = URL.createObjectURL(await res.blob());
    return objectUrl.current;
  }

  async function toggle() {
    if (playing) {
      audio.current?.pause();
      return;
    }
    try {
      if (!audio.current) {
        setLoading(true);
        const el = new Audio(await sourceUrl());
        el.onplay = () => setPlaying(true);
        el.onpause = () => setPlaying(false);
        el.onended = () => {
          setPlaying(false);
          setPosition(0);
        };
        el.ontimeupdate = () => setPosition(el.currentTime);
        el.onloadedmetadata = () => {
          if (Number.isFinite(el.duration) && el.duration > 0) setDuration(el.duration);
        };
        audio.current = el;
      }
      await audio.current.play();
    } catch (error) {
      toast.error(errorText(error));
    } finally {
      setLoading(false);
    }
  }

  const progress = duration > 0 ? Math.min(100, (position / duration) * 100) : 0;
  return (
    <div className="voice-note">
      <button
        type="button"
        className="voice-note__play"
        onClick={toggle}
        aria-label={`${playing ? t("pause") : t("play")}: ${label}`}
        aria-pressed={playing}
        disabled={loading}
      >
        {playing ? (
          <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
            <rect x="6" y="5" width="4" height="14" rx="1" fill="currentColor" />
            <rect x="14" y="5" width="4" height="14" rx="1" fill="currentColor" />
          </svg>
        ) : (
          <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
            <path d="M8 5v14l11-7z" fill="currentColor" />
          </svg>
        )}
      </button>
      <span className="voice-note__track" aria-hidden="true">
        <span className="voice-note__fill" style={{ inlineSize: `${progress}%` }} />
      </span>
      <span className="voice-note__time ltr">{formatDuration(playing || position > 0 ? position : duration)}</span>
    </div>
  );
}
