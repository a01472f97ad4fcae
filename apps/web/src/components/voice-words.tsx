import { type Transcript, transcriptFor } from "@hikaya/contracts";
import { useLanguage, useTranslation } from "../lib/i18n.ts";
import "./voice-words.css";

/**
 * The words of a voice under its player (issue 39, WCAG 1.2.1), behind "Read": in the person's language, else the
 * other one's (a text to read beats none), marked with its language; nothing when no words were typed. One for every
 * voice the program publishes, so each reads and sounds the same to a screen reader.
 */
export function VoiceWords({
  transcript,
  name,
  className,
}: {
  transcript: Transcript | null | undefined;
  /** Whose voice, for the summary's accessible name. */
  name: string;
  className?: string;
}) {
  const { t } = useTranslation();
  const words = transcriptFor(useLanguage(), transcript);
  if (!words) return null;
  return (
    <details className={className ? `voice-words ${className}` : "voice-words"}>
      <summary aria-label={t("voiceWords.readLabel", { name })}>{t("voiceWords.read")}</summary>
      <p lang={words.language} dir={words.language === "ar" ? "rtl" : "ltr"}>
        {words.text}
      </p>
    </details>
  );
}
