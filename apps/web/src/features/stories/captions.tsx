import type { Language, MediaStream } from "@hikaya/contracts";
import { type RefObject, useEffect, useState } from "react";
import { useLanguage, useTranslation } from "../../lib/i18n.ts";

/**
 * Captions of a story video (issue 29, WCAG 2.2 1.2.2): one WebVTT track per language the server lists
 * (`MediaStream.captions`), shown in the person's language when there is one, with a switch to the other or off.
 * The tracks are plain <track> elements, so they show over the original file, native HLS and hls.js alike.
 */
export type CaptionChoice = Language | "off";

type Captions = NonNullable<MediaStream["captions"]>;

/** The person's language when the video has captions in it; otherwise off (the other language is one tap away). */
export function defaultCaption(captions: Captions, language: Language): CaptionChoice {
  return captions.some((c) => c.lang === language) ? language : "off";
}

/** Shows the chosen track and hides the others; the element's own captions menu changes the same modes. */
export function showCaption(tracks: ArrayLike<TextTrack>, choice: CaptionChoice): void {
  for (const track of Array.from(tracks)) {
    if (track.kind !== "captions") continue;
    track.mode = track.language === choice ? "showing" : "disabled";
  }
}

export function useCaptions(video: RefObject<HTMLVideoElement | null>, captions: Captions) {
  const language = useLanguage();
  const available = captions.map((c) => c.lang).join(",");
  const [choice, setChoice] = useState<CaptionChoice>(() => defaultCaption(captions, language));
  // The list arrives after the player mounted (the stream query): choose again when it changes.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `available` stands for `captions`, a new array each render.
  useEffect(() => setChoice(defaultCaption(captions, language)), [available, language]);
  useEffect(() => {
    const tracks = video.current?.textTracks;
    if (!tracks) return;
    showCaption(tracks, choice);
    // A track element added later (its cues still loading) starts "disabled" unless it is the default.
    const again = () => showCaption(tracks, choice);
    // Optional calls: jsdom's track list is a plain list without events.
    tracks.addEventListener?.("addtrack", again);
    return () => tracks.removeEventListener?.("addtrack", again);
  }, [video, choice]);
  return { choice, setChoice };
}

/** The <track> elements; `lang` and `srcLang` name each one's language, so Arabic cues are laid out right to left. */
export function CaptionTracks({ captions, choice }: { captions: Captions; choice: CaptionChoice }) {
  const { t } = useTranslation("stories");
  return captions.map((c) => (
    <track
      key={c.url}
      kind="captions"
      src={c.url}
      srcLang={c.lang}
      lang={c.lang}
      label={t(`captions.languages.${c.lang}`)}
      default={c.lang === choice}
    />
  ));
}

/** Captions in English, in Arabic, or off: buttons a thumb can reach, each saying whether it is on. */
export function CaptionSwitch({
  captions,
  choice,
  onChoose,
}: {
  captions: Captions;
  choice: CaptionChoice;
  onChoose: (choice: CaptionChoice) => void;
}) {
  const { t } = useTranslation("stories");
  if (captions.length === 0) return null;
  const options: CaptionChoice[] = [...captions.map((c) => c.lang), "off"];
  return (
    <fieldset className="captions-switch">
      <legend className="captions-switch__legend">{t("captions.label")}</legend>
      {options.map((option) => (
        <button
          key={option}
          type="button"
          className="captions-switch__option"
          aria-pressed={choice === option}
          onClick={() => onChoose(option)}
        >
          {option === "off" ? t("captions.off") : t(`captions.languages.${option}`)}
        </button>
      ))}
    </fieldset>
  );
}
