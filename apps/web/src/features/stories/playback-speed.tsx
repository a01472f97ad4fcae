import { type RefObject, useEffect, useState } from "react";
import { useTranslation } from "../../lib/i18n.ts";

/** The speeds a story offers (issue 38): a little slower for a new language, faster for a second viewing. */
export const PLAYBACK_RATES = [0.75, 1, 1.25, 1.5] as const;
const RATE_KEY = "hikaya.playbackRate";

function storedRate(): number {
  const rate = Number(localStorage.getItem(RATE_KEY));
  return (PLAYBACK_RATES as readonly number[]).includes(rate) ? rate : 1;
}

/**
 * The speed buttons under a story. The choice is kept in this browser and applied to every story; a new source
 * (HLS attaching, the original after a failure) resets a video's rate, so it is set again whenever `attached` turns.
 */
export function PlaybackSpeed({ video, attached }: { video: RefObject<HTMLVideoElement | null>; attached: boolean }) {
  const { t, i18n } = useTranslation("stories");
  const [rate, setRate] = useState(storedRate);
  useEffect(() => {
    const el = video.current;
    if (!el || !attached) return;
    const apply = () => {
      el.defaultPlaybackRate = rate;
      el.playbackRate = rate;
    };
    apply();
    // Loading a source resets the rate to the default one: set both, and again once the media is known.
    el.addEventListener("loadedmetadata", apply);
    return () => el.removeEventListener("loadedmetadata", apply);
  }, [video, attached, rate]);
  const number = new Intl.NumberFormat(i18n.language.startsWith("ar") ? "ar-u-nu-latn" : "en-US");
  return (
    // Drawn as the captions switch beside it (stories.css): one row of pill buttons.
    <fieldset className="captions-switch">
      <legend className="captions-switch__legend">{t("story.speed")}</legend>
      {PLAYBACK_RATES.map((option) => (
        <button
          key={option}
          type="button"
          className="captions-switch__option"
          aria-pressed={rate === option}
          onClick={() => {
            localStorage.setItem(RATE_KEY, String(option));
            setRate(option);
          }}
        >
          {t("story.speedOption", { rate: number.format(option) })}
        </button>
      ))}
    </fieldset>
  );
}
