import { type MediaJobState, type MediaStatusAnswer, mediaStatusAnswerSchema } from "@hikaya/contracts";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "../../lib/i18n.ts";
import { consoleApi } from "../api.ts";

/** While a job waits or runs, its state is asked for again this often; a finished one is not asked again. */
const POLL_MS = 2000;

export const mediaStatusQuery = (path: string) => ({
  queryKey: ["admin", "media-status", path.split("?")[0]],
  queryFn: async () => {
    const answer = await consoleApi<MediaStatusAnswer>("/admin/media/status", { method: "POST", body: { paths: [path] } });
    return mediaStatusAnswerSchema.parse(answer).states[0] ?? null;
  },
  refetchInterval: (query: { state: { data?: MediaJobState | null } }) => {
    const status = query.state.data?.status;
    return status === "waiting" || status === "processing" ? POLL_MS : false;
  },
});

/**
 * Where a stored video or voice stands in its processing for weak connections (server: modules/media): waiting,
 * processing with its percentage, ready, or failed with the reason in the operator's language. Nothing for a file
 * with no job (an outside link, a file stored before processing existed).
 */
export function MediaJobStatus({ path }: { path: string }) {
  const { t } = useTranslation("admin");
  const query = useQuery(mediaStatusQuery(path));
  const state = query.data;
  if (!state) return null;
  const text =
    state.status === "processing"
      ? t("mediaJob.processing", { percent: state.progress })
      : state.status === "failed"
        ? t("mediaJob.failed", { reason: t(`mediaJob.failure.${state.failure ?? "failed"}`) })
        : t(`mediaJob.${state.status}`);
  return (
    <p className="admin-hint admin-media-job" role="status" data-status={state.status}>
      <span className={state.status === "failed" ? "admin-badge admin-badge--danger" : "admin-badge"}>{t("mediaJob.label")}</span>{" "}
      {text}
      {state.status !== "ready" && state.status !== "failed" && <> {t("mediaJob.originalPlays")}</>}
    </p>
  );
}
