import type { Transcript } from "@hikaya/contracts";
import { useEffect, useRef, useState } from "react";
import WaveSurfer from "wavesurfer.js";
import { VoiceWords } from "../../components/voice-words.tsx";
import { useTranslation } from "../../lib/i18n.ts";

export type BarState = "idle" | "playing" | "paused" | "finished";

/**
 * One family member's answer (spec sections 2 and 4): thumbnail, name, play/pause and a waveform.
 * States: idle, playing, paused, finished; a tap toggles. The parent decides which one may play. What the voice
 * says, when operators typed it, is under the bar behind "Read".
 */
export function AudioBar({
  name,
  audio,
  thumbnail,
  transcript,
  highlighted,
  playing,
  onToggle,
  onState,
}: {
  name: string;
  audio: string;
  thumbnail: string | null;
  transcript: Transcript | null;
  highlighted: boolean;
  playing: boolean;
  onToggle(): void;
  onState(state: BarState): void;
}) {
  const { t } = useTranslation("characters");
  const wave = useRef<HTMLDivElement>(null);
  const surfer = useRef<WaveSurfer | null>(null);
  const [ready, setReady] = useState(false);
  const [state, setState] = useState<BarState>("idle");
  const report = useRef(onState);
  report.current = onState;

  useEffect(() => {
    if (!wave.current) return;
    const styles = getComputedStyle(document.documentElement);
    const primary = styles.getPropertyValue("--primary").trim() || "#2e9e5b";
    const ws = WaveSurfer.create({
      container: wave.current,
      url: audio,
      height: 36,
      waveColor: "#c9d3cd",
      progressColor: primary,
      cursorWidth: 0,
      barWidth: 3,
      barGap: 2,
      barRadius: 3,
      normalize: true,
      dragToSeek: true,
    });
    const set = (s: BarState) => {
      setState(s);
      report.current(s);
    };
    ws.on("ready", () => setReady(true));
    ws.on("play", () => set("playing"));
    ws.on("pause", () => {
      if (!ws.getDuration() || ws.getCurrentTime() < ws.getDuration() - 0.05) set("paused");
    });
    ws.on("finish", () => set("finished"));
    surfer.current = ws;
    return () => {
      surfer.current = null;
      ws.destroy();
    };
  }, [audio]);

  useEffect(() => {
    const ws = surfer.current;
    if (!ws) return;
    if (playing && !ws.isPlaying()) void ws.play().catch(() => undefined);
    if (!playing && ws.isPlaying()) ws.pause();
  }, [playing]);

  return (
    <li className={`audio-bar${highlighted ? " audio-bar--highlighted" : ""} audio-bar--${state}`}>
      {thumbnail ? (
        <img className="audio-bar__thumb" src={thumbnail} alt="" width={52} height={52} />
      ) : (
        <span className="audio-bar__thumb audio-bar__thumb--blank" aria-hidden="true">
          {name.slice(0, 1)}
        </span>
      )}
      <div className="audio-bar__main">
        <span className="audio-bar__name">{name}</span>
        <div className="audio-bar__wave" ref={wave} dir="ltr" data-ready={ready || undefined} />
      </div>
      <button
        type="button"
        className="audio-bar__toggle"
        aria-label={playing ? t("pause", { name }) : t("play", { name })}
        aria-pressed={playing}
        onClick={onToggle}
      >
        <svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">
          {playing ? (
            <path d="M8 5h3v14H8zM13 5h3v14h-3z" fill="currentColor" />
          ) : (
            <path d="M8 5l11 7-11 7z" fill="currentColor" />
          )}
        </svg>
      </button>
      <VoiceWords className="audio-bar__words" transcript={transcript} name={name} />
    </li>
  );
}
