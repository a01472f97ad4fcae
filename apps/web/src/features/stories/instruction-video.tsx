import type { InstructionLocation } from "@hikaya/contracts";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "../../lib/i18n.ts";
import { useInstruction } from "../../lib/instructions.ts";
import { StreamedVideo } from "../../lib/streamed-video.tsx";

/** An instruction video by location, shown inline; absent or failing instructions show nothing (spec section 8). */
export function InlineInstruction({ location }: { location: InstructionLocation }) {
  const { t } = useTranslation("stories");
  const src = useInstruction(location);
  if (!src) return null;
  return (
    <figure className="instruction" data-location={location}>
      <StreamedVideo
        key={src}
        className="instruction__video"
        src={src}
        controls
        playsInline
        preload="metadata"
        aria-label={`${t("instruction.label")}: ${t(`instruction.locations.${location}`)}`}
      />
    </figure>
  );
}

/** A help button that opens the instruction video in a modal. */
export function InstructionModalButton({ location, label }: { location: InstructionLocation; label: string }) {
  const { t } = useTranslation("stories");
  const src = useInstruction(location);
  const [open, setOpen] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  const video = useRef<HTMLVideoElement>(null);

  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) {
      d.showModal();
      void video.current?.play().catch(() => undefined);
    }
    if (!open && d.open) d.close();
    if (!open) video.current?.pause();
  }, [open]);

  if (!src) return null;
  return (
    <>
      <button type="button" className="button" onClick={() => setOpen(true)}>
        <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
          <circle cx="12" cy="12" r="9.5" fill="none" stroke="currentColor" strokeWidth="1.8" />
          <path d="M10 8.5v7l6-3.5z" fill="currentColor" />
        </svg>
        {label}
      </button>
      <dialog
        ref={dialog}
        className="video-modal"
        aria-label={`${t("instruction.label")}: ${t(`instruction.locations.${location}`)}`}
        onCancel={(e) => {
          e.preventDefault();
          setOpen(false);
        }}
      >
        <div className="video-modal__head">
          <button type="button" className="round-button" aria-label={t("instruction.close")} onClick={() => setOpen(false)}>
            <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
              <path d="M6 6l12 12M18 6L6 18" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
            </svg>
          </button>
        </div>
        <StreamedVideo ref={video} className="video-modal__video" src={src} controls playsInline preload="metadata" />
      </dialog>
    </>
  );
}
