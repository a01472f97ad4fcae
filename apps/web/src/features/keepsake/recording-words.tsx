import type { KeepsakeVoice } from "@hikaya/contracts";
import { useId, useState } from "react";
import { ApiError } from "../../lib/api-client.ts";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";
import { useSaveRecordingWords } from "./api/keepsake.ts";

/** Why a save of the words was refused, in the person's language. */
function refusal(error: unknown, t: (key: "words.stale" | "words.tooLong") => string): string {
  if (error instanceof ApiError && error.code === "conflict") return t("words.stale");
  if (error instanceof ApiError && error.code === "validation_failed") return t("words.tooLong");
  return errorText(error);
}

/**
 * The words of one of the storyteller's own recordings (issue 39): typed here, printed under the voice in the book
 * and shown on its listening page. A save names the version it edited; one made elsewhere meanwhile wins and is
 * shown here instead.
 */
export function RecordingWords({ voice, label }: { voice: KeepsakeVoice; label: string }) {
  const { t } = useTranslation("keepsake");
  const id = useId();
  const save = useSaveRecordingWords();
  const stored = voice.words?.text ?? "";
  const [text, setText] = useState(stored);
  const [problem, setProblem] = useState<string | null>(null);
  // When the stored words change (this save, or another's), the box shows them.
  const [seen, setSeen] = useState(voice.wordsVersion);
  if (seen !== voice.wordsVersion) {
    setSeen(voice.wordsVersion);
    setText(stored);
  }
  return (
    <div className="keepsake-field keepsake-words">
      <label htmlFor={id}>{t("words.label", { name: label })}</label>
      <textarea id={id} dir="auto" rows={3} value={text} onChange={(e) => setText(e.currentTarget.value)} />
      {problem ? (
        <p className="keepsake-note" role="alert">
          {problem}
        </p>
      ) : null}
      <button
        type="button"
        disabled={save.isPending || text === stored}
        onClick={() => {
          setProblem(null);
          save.mutate(
            { id: voice.id, transcript: text, version: voice.wordsVersion },
            {
              onSuccess: () => toast.success(t("words.saved")),
              onError: (error) => setProblem(refusal(error, t)),
            },
          );
        }}
      >
        {t("words.save", { name: label })}
      </button>
    </div>
  );
}
