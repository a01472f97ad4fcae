import type { Story } from "@hikaya/contracts";
import { useEffect, useState } from "react";
import { useViewingMode } from "../../../lib/account.ts";
import { formatBytes } from "../../../lib/format.ts";
import { useLanguage, useTranslation } from "../../../lib/i18n.ts";
import { toast } from "../../../lib/toast.tsx";
import { embedFor } from "../embed.ts";
import { type CopyState, copyState, offlineSupported, removeCopy } from "./offline-copy.ts";

type State = CopyState | { kind: "downloading"; fraction: number } | { kind: "checking" };

function formatPercent(fraction: number, language: string): string {
  const locale = language.startsWith("ar") ? "ar-u-nu-latn" : "en-US";
  return new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 0 }).format(Math.floor(fraction * 100) / 100);
}

/**
 * The next story's download for offline (issue 38): its button, the progress, then "Available offline" with the size
 * and a way to remove it; and a word when the browser removed a copy it had been asked to keep. Only the story the
 * person may watch next can be downloaded (`canDownload`): a locked story's files are never handed out. A watched
 * story keeps "Available offline" and its remove button while its copy is on the device.
 */
export function OfflineDownload({ story, canDownload }: { story: Story; canDownload: boolean }) {
  const { t, i18n } = useTranslation("stories");
  const language = useLanguage();
  const mode = useViewingMode();
  const [state, setState] = useState<State>({ kind: "checking" });
  const downloadable = Boolean(story.url) && embedFor(story.url ?? "", window.location.origin).kind === "file";

  useEffect(() => {
    let live = true;
    void copyState(story.id).then((found) => live && setState(found));
    return () => {
      live = false;
    };
  }, [story.id]);

  if (!downloadable || !offlineSupported() || state.kind === "checking") return null;
  if (!canDownload && state.kind !== "ready") return null;

  const download = async () => {
    setState({ kind: "downloading", fraction: 0 });
    try {
      const { downloadStory } = await import("./download.ts");
      const bytes = await downloadStory(story.id, language, mode ?? "save_data", (fraction) =>
        setState({ kind: "downloading", fraction }),
      );
      setState({ kind: "ready", bytes });
    } catch {
      toast.error(t("offline.failed"));
      setState(await copyState(story.id));
    }
  };
  const remove = async () => {
    await removeCopy(story.id);
    setState({ kind: "none" });
  };

  return (
    <div className="offline-download" data-testid="offline-download">
      {state.kind === "downloading" ? (
        <>
          <progress className="offline-download__bar" max={1} value={state.fraction} aria-label={t("offline.download")} />
          <span className="offline-download__status" role="status">
            {t("offline.downloading", { percent: formatPercent(state.fraction, i18n.language) })}
          </span>
        </>
      ) : state.kind === "ready" ? (
        <>
          <span className="offline-download__status" role="status">
            {t("offline.available")} · <span data-testid="offline-size">{formatBytes(state.bytes, i18n.language)}</span>
          </span>
          <button type="button" className="button offline-download__action" onClick={() => void remove()}>
            {t("offline.remove")}
          </button>
        </>
      ) : (
        <>
          {state.kind === "removed" && (
            <p className="offline-download__note" role="status">
              {t("offline.removed")}
            </p>
          )}
          <button
            type="button"
            className="button offline-download__action"
            disabled={mode === null}
            onClick={() => void download()}
          >
            {t("offline.download")}
          </button>
        </>
      )}
    </div>
  );
}
