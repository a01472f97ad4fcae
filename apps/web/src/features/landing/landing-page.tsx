import { PRERENDER_FILL_ATTRIBUTE, PRERENDER_SLOTS } from "@hikaya/contracts/constants";
import { useRef, useState } from "react";
import { LanguageSwitch } from "../../components/language-switch.tsx";
import { track } from "../../lib/analytics.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { useInstruction } from "../../lib/instructions.ts";
import { takeReturnPath } from "../../lib/return-path.ts";
import { useNavigate } from "../../lib/router.tsx";
import { useScripted } from "../../lib/scripted.ts";
import { getAccessToken } from "../../lib/session.ts";
import { StreamedVideo } from "../../lib/streamed-video.tsx";

/**
 * The intro video (/landing, and /landing-page after phone sign-up). When it ends an analytics event
 * is sent; a visitor goes on to /register marked as coming from the landing page, a signed-in person
 * to the stories.
 *
 * Prerendered, the video element is there before any script: the server fills in its file and poster per request
 * (server modules/web/prerender-fills.ts), and until the scripts take it over it has its own controls and fetches
 * nothing before a tap (a weak connection carries the scripts first). Then the scripts play it, HLS when there is one.
 */
export function LandingPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const video = useRef<HTMLVideoElement>(null);
  const src = useInstruction("Landing Page");
  const [muted, setMuted] = useState(false);
  const scripted = useScripted();

  // Runs once a source is attached (StreamedVideo: the HLS version when the server has one).
  const start = (el: HTMLVideoElement) => {
    el.play().catch(() => {
      // Browsers block autoplay with sound; play muted and offer sound.
      el.muted = true;
      setMuted(true);
      void el.play().catch(() => undefined);
    });
  };

  const finish = () => {
    track("landing_video_end");
    navigate(getAccessToken() ? takeReturnPath() : "/register?fromLandingPage=1");
  };

  return (
    <main className="screen landing">
      <div className="landing__top">
        <LanguageSwitch />
        <button type="button" className="link-button" onClick={finish}>
          {t("landing.skip")}
        </button>
      </div>
      <StreamedVideo
        ref={video}
        className="landing__video"
        src={src}
        onAttached={start}
        playsInline
        // Nothing fetched before `start` plays it, nor before a person taps play without scripts.
        preload="none"
        controls={!scripted}
        aria-label={t("landing.videoLabel")}
        onEnded={finish}
        {...{ [PRERENDER_FILL_ATTRIBUTE]: PRERENDER_SLOTS.landingVideo }}
      />
      {muted && (
        <button
          type="button"
          className="button button--primary landing__sound"
          onClick={() => {
            if (!video.current) return;
            video.current.muted = false;
            setMuted(false);
          }}
        >
          {t("landing.playWithSound")}
        </button>
      )}
    </main>
  );
}
