import { UPLOAD_LIMITS, type UploadKind } from "@hikaya/contracts";
import { useId, useRef, useState } from "react";
import { ApiError } from "../../lib/api-client.ts";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";
import { type UploadProgress, uploadWithProgress } from "../api.ts";

const ACCEPT: Record<UploadKind, string> = {
  video: "video/mp4,video/webm,video/quicktime,.mp4,.webm,.mov",
  image: "image/jpeg,image/png,image/webp",
  audio: "audio/*,.m4a,.mp3,.wav,.ogg,.webm",
  pdf: "application/pdf,.pdf",
};

type State =
  | { phase: "idle" }
  | { phase: "uploading"; progress: UploadProgress; attempt: number }
  | { phase: "failed"; error: unknown }
  | { phase: "done"; name: string };

const retryable = (error: unknown) => error instanceof ApiError && (error.code === "network" || error.status >= 500);
const MB = 1024 * 1024;

/**
 * Picks one file and uploads it at once with a progress bar. A dropped connection is retried once by
 * itself, then a Retry button sends the same file again; wrong type (415) and too large (413) say so.
 * Files past the limit are refused here before a byte is sent (the server refuses them too).
 */
export function UploadField<T>({
  label,
  kind,
  url,
  method = "POST",
  onUploaded,
  hint,
}: {
  label: string;
  kind: UploadKind;
  url: string;
  method?: "POST" | "PUT";
  onUploaded: (result: T) => void | Promise<void>;
  hint?: string;
}) {
  const { t } = useTranslation("admin");
  const id = useId();
  const [state, setState] = useState<State>({ phase: "idle" });
  const fileRef = useRef<File | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const abortRef = useRef<AbortController | null>(null);

  async function send(file: File) {
    fileRef.current = file;
    if (file.size > UPLOAD_LIMITS[kind]) {
      const error = new ApiError("payload_too_large", "too large", 413);
      setState({ phase: "failed", error });
      toast.error(errorText(error));
      return;
    }
    for (let attempt = 1; attempt <= 2; attempt++) {
      const controller = new AbortController();
      abortRef.current = controller;
      setState({ phase: "uploading", progress: { loaded: 0, total: file.size }, attempt });
      try {
        const result = await uploadWithProgress<T>(url, file, {
          method,
          signal: controller.signal,
          onProgress: (progress) => setState({ phase: "uploading", progress, attempt }),
        });
        await onUploaded(result);
        setState({ phase: "done", name: file.name });
        if (inputRef.current) inputRef.current.value = "";
        return;
      } catch (error) {
        if (controller.signal.aborted) {
          setState({ phase: "idle" });
          return;
        }
        if (attempt < 2 && retryable(error)) continue;
        setState({ phase: "failed", error });
        toast.error(errorText(error));
        return;
      }
    }
  }

  const percent = state.phase === "uploading" ? Math.round((state.progress.loaded / Math.max(1, state.progress.total)) * 100) : 0;
  return (
    <div className="admin-upload">
      <label htmlFor={id} className="admin-upload__label">
        {label}
      </label>
      {/* The native picker's own words follow the browser's language, not the page's: a button of ours instead. */}
      <input
        ref={inputRef}
        id={id}
        type="file"
        className="visually-hidden"
        tabIndex={-1}
        accept={ACCEPT[kind]}
        disabled={state.phase === "uploading"}
        onChange={(event) => {
          const file = event.currentTarget.files?.[0];
          if (file) void send(file);
        }}
      />
      <div className="admin-upload__picker">
        <button
          type="button"
          className="admin-button admin-button--small"
          disabled={state.phase === "uploading"}
          aria-label={`${label}: ${t("upload.choose")}`}
          onClick={() => inputRef.current?.click()}
        >
          <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true">
            <path
              d="M12 16V4m0 0L7 9m5-5 5 5M5 20h14"
              fill="none"
              stroke="currentColor"
              strokeWidth="2"
              strokeLinecap="round"
              strokeLinejoin="round"
            />
          </svg>
          {t("upload.choose")}
        </button>
        <span className="admin-muted admin-upload__file">{fileRef.current?.name ?? t("upload.noFile")}</span>
      </div>
      <span className="admin-hint">{hint ?? t("upload.limit", { size: Math.round(UPLOAD_LIMITS[kind] / MB) })}</span>
      {state.phase === "uploading" && (
        <div className="admin-upload__progress">
          <progress max={100} value={percent} aria-label={t("upload.progress", { name: label })} />
          <span className="ltr">{percent}%</span>
          <button type="button" className="admin-link-button" onClick={() => abortRef.current?.abort()}>
            {t("common.cancel")}
          </button>
        </div>
      )}
      {state.phase === "failed" && (
        <div className="admin-upload__error" role="alert">
          <span>{errorText(state.error)}</span>
          {fileRef.current && retryable(state.error) && (
            <button
              type="button"
              className="admin-button admin-button--small"
              onClick={() => fileRef.current && void send(fileRef.current)}
            >
              {t("upload.retry")}
            </button>
          )}
        </div>
      )}
      {state.phase === "done" && (
        <span className="admin-upload__done" role="status">
          {t("upload.done", { name: state.name })}
        </span>
      )}
    </div>
  );
}
