import {
  type CaptionsProblem,
  captionsProblem,
  LANGUAGES,
  type Language,
  type MediaStream,
  mediaStreamSchema,
} from "@hikaya/contracts";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useState } from "react";
import { ApiError } from "../../lib/api-client.ts";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";
import { consoleApi } from "../api.ts";
import { captionsFromFile } from "./captions-file.ts";

/**
 * A stored video's captions, one WebVTT file per language (issue 29, WCAG 2.2 1.2.2): typed here or read from an
 * uploaded .vtt or .srt (converted, captions-file.ts), previewed over the video itself before saving, and saved beside the video on the server
 * (modules/media/captions.ts), under its access rule.
 */

/** The editor's copy of what the server lists for the video. Set from each save's answer, never refetched behind
 * it: GET /api/media/stream may be answered from the browser's cache for 30 s. */
const captionsQuery = (src: string) => ({
  queryKey: ["admin", "captions", src.split("?")[0]],
  queryFn: async () => mediaStreamSchema.parse(await consoleApi<MediaStream>(`/media/stream?src=${encodeURIComponent(src)}`)),
  staleTime: Number.POSITIVE_INFINITY,
  refetchOnWindowFocus: false,
});

/** Why the server refused, when it says in its details; else null. */
function refusal(error: unknown): CaptionsProblem | null {
  if (!(error instanceof ApiError) || error.code !== "validation_failed") return null;
  const reason = (error.details as { reason?: unknown } | undefined)?.reason;
  return reason === "not_webvtt" || reason === "too_large" ? reason : null;
}

export function CaptionsEditor({ src, videoName }: { src: string; videoName: string }) {
  const { t } = useTranslation("admin");
  const [lang, setLang] = useState<Language>("en");
  const ids = useId();
  const query = useQuery(captionsQuery(src));
  const saved = query.data?.captions ?? [];
  return (
    <div className="admin-subcard admin-captions" data-testid="captions-editor">
      <span className="admin-label">{t("captions.of", { name: videoName })}</span>
      <fieldset className="admin-fieldset">
        <legend>{t("captions.language")}</legend>
        <div className="admin-segmented">
          {LANGUAGES.map((l) => (
            <label key={l}>
              <input type="radio" name={`${ids}-lang`} checked={lang === l} onChange={() => setLang(l)} />{" "}
              {t(`captions.languages.${l}`)}{" "}
              <span className="admin-muted">({saved.some((c) => c.lang === l) ? t("captions.saved") : t("captions.none")})</span>
            </label>
          ))}
        </div>
      </fieldset>
      {query.isSuccess && (
        <LanguageCaptions key={lang} src={src} lang={lang} savedUrl={saved.find((c) => c.lang === lang)?.url ?? null} />
      )}
    </div>
  );
}

function LanguageCaptions({ src, lang, savedUrl }: { src: string; lang: Language; savedUrl: string | null }) {
  const { t } = useTranslation("admin");
  const client = useQueryClient();
  const ids = useId();
  const [text, setText] = useState<string | null>(null);
  // "not_captions": an uploaded file that is neither WebVTT nor SubRip (the text is left as it was).
  const [problem, setProblem] = useState<CaptionsProblem | "not_captions" | null>(null);
  const [busy, setBusy] = useState(false);
  const stored = useQuery({
    queryKey: ["admin", "captions-text", savedUrl],
    queryFn: async () => (savedUrl ? (await fetch(savedUrl)).text() : ""),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const value = text ?? stored.data ?? "";
  const preview = usePreviewUrl(value);
  const languageName = t(`captions.languages.${lang}`);

  function edit(next: string) {
    setText(next);
    setProblem(next.trim() ? captionsProblem(next) : null);
  }

  async function save(method: "PUT" | "DELETE") {
    const found = method === "PUT" ? captionsProblem(value) : null;
    if (found) {
      setProblem(found);
      return;
    }
    setBusy(true);
    try {
      const body = method === "PUT" ? { src, lang, text: value } : { src, lang };
      const answer = await consoleApi<MediaStream>("/admin/media/captions", { method, body });
      client.setQueryData(captionsQuery(src).queryKey, mediaStreamSchema.parse(answer));
      if (method === "DELETE") setText("");
      toast.success(method === "PUT" ? t("captions.savedToast", { language: languageName }) : t("captions.removedToast"));
    } catch (error) {
      const refused = refusal(error);
      if (refused) setProblem(refused);
      else toast.error(errorText(error));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="admin-captions__language">
      <div className="admin-field">
        <label htmlFor={`${ids}-file`}>{t("captions.file", { language: languageName })}</label>
        <input
          id={`${ids}-file`}
          type="file"
          accept=".vtt,.srt,text/vtt,application/x-subrip"
          className="admin-input"
          onChange={async (e) => {
            const file = e.target.files?.[0];
            if (!file) return;
            const converted = captionsFromFile(await file.text());
            if (converted === null) setProblem("not_captions");
            else edit(converted);
          }}
        />
      </div>
      <div className="admin-field">
        <label htmlFor={`${ids}-text`}>{t("captions.text", { language: languageName })}</label>
        <textarea
          id={`${ids}-text`}
          className="admin-input admin-captions__text"
          dir={lang === "ar" ? "rtl" : "ltr"}
          lang={lang}
          rows={8}
          spellCheck={false}
          placeholder={"WEBVTT\n\n00:00.000 --> 00:04.000\n…"}
          aria-invalid={problem !== null}
          aria-describedby={`${ids}-problem`}
          value={value}
          onChange={(e) => edit(e.target.value)}
        />
        <p id={`${ids}-problem`} className="admin-error" role="alert">
          {problem ? t(`captions.problem.${problem}`) : null}
        </p>
      </div>
      <div className="admin-preview-box">
        <span className="admin-label">{t("captions.preview")}</span>
        <video
          className="admin-preview admin-preview--video"
          src={src}
          controls
          preload="metadata"
          aria-label={t("captions.preview")}
        >
          {preview && (
            <track key={preview} kind="captions" src={preview} srcLang={lang} lang={lang} label={languageName} default />
          )}
        </video>
      </div>
      <div className="admin-actions">
        <button
          type="button"
          className="admin-button admin-button--primary"
          disabled={busy}
          aria-busy={busy}
          onClick={() => void save("PUT")}
        >
          {t("captions.save", { language: languageName })}
        </button>
        {savedUrl && (
          <button type="button" className="admin-button" disabled={busy} onClick={() => void save("DELETE")}>
            {t("captions.remove", { language: languageName })}
          </button>
        )}
      </div>
    </div>
  );
}

/** A blob: address of the text as a WebVTT file, for the preview's <track>; none while it is not WebVTT. */
function usePreviewUrl(text: string): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (captionsProblem(text)) {
      setUrl(null);
      return;
    }
    const next = URL.createObjectURL(new Blob([text], { type: "text/vtt" }));
    setUrl(next);
    return () => URL.revokeObjectURL(next);
  }, [text]);
  return url;
}
