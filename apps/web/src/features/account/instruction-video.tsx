import type { InstructionLocation } from "@hikaya/contracts";
import { useInstruction } from "../../lib/instructions.ts";
import { StreamedVideo } from "../../lib/streamed-video.tsx";

/** The help video for a screen, by location name; nothing shows when there is none (spec section 8). */
export function InstructionVideo({ location, label }: { location: InstructionLocation; label: string }) {
  const src = useInstruction(location);
  if (!src) return null;
  return (
    <figure className="instruction-video">
      <StreamedVideo src={src} controls playsInline preload="metadata" aria-label={label} />
      <figcaption>{label}</figcaption>
    </figure>
  );
}
