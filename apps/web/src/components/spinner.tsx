import { SPINNER_COLOR, SPINNER_SIZE } from "@hikaya/contracts";
import { useTranslation } from "../lib/i18n.ts";

/** The spec's loading spinner: #4fa94d, 50 px (smaller inside buttons). */
export function Spinner({ size = SPINNER_SIZE, label }: { size?: number; label?: string }) {
  const { t } = useTranslation();
  return (
    <span className="spinner" role="status" aria-label={label ?? t("loading")} style={{ width: size, height: size }}>
      <svg viewBox="0 0 50 50" width={size} height={size} aria-hidden="true">
        <circle cx="25" cy="25" r="20" fill="none" stroke={SPINNER_COLOR} strokeOpacity="0.25" strokeWidth="5" />
        <path d="M25 5a20 20 0 0 1 20 20" fill="none" stroke={SPINNER_COLOR} strokeWidth="5" strokeLinecap="round" />
      </svg>
    </span>
  );
}

export function PageSpinner() {
  return (
    <div className="page-spinner">
      <Spinner />
    </div>
  );
}
