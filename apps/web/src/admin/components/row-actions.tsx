import { useTranslation } from "../../lib/i18n.ts";

/** ↑ and ↓ for one row of an ordered list; their names say which row ("Move up: Question 2"), the arrows alone do not. */
export function MoveButtons({
  name,
  first,
  last,
  disabled = false,
  onMove,
}: {
  name: string;
  first: boolean;
  last: boolean;
  disabled?: boolean;
  onMove: (delta: -1 | 1) => void;
}) {
  const { t } = useTranslation("admin");
  return (
    <>
      <button
        type="button"
        className="admin-icon-button"
        aria-label={t("common.moveUp", { name })}
        disabled={first || disabled}
        onClick={() => onMove(-1)}
      >
        ↑
      </button>
      <button
        type="button"
        className="admin-icon-button"
        aria-label={t("common.moveDown", { name })}
        disabled={last || disabled}
        onClick={() => onMove(1)}
      >
        ↓
      </button>
    </>
  );
}

/** One action on a row (Edit, Change, Delete): it shows the action, and its name adds the row's ("Delete: Huda"). */
export function RowButton({
  action,
  name,
  danger = false,
  onClick,
}: {
  action: string;
  name: string;
  danger?: boolean;
  onClick: () => void;
}) {
  return (
    <button
      type="button"
      className={`admin-button admin-button--small${danger ? " admin-button--danger-outline" : ""}`}
      aria-label={`${action}: ${name}`}
      onClick={onClick}
    >
      {action}
    </button>
  );
}
