import { type ReactNode, useEffect, useRef } from "react";
import "./confirm-dialog.css";

/**
 * A modal confirmation on the native <dialog>: focus is trapped and Escape means "stay". `children`
 * go between the message and the buttons (e.g. a password the action needs).
 */
export function ConfirmDialog({
  open,
  message,
  stayLabel,
  leaveLabel,
  onStay,
  onLeave,
  children,
  danger = false,
  busy = false,
}: {
  open: boolean;
  message: string;
  stayLabel: string;
  leaveLabel: string;
  onStay: () => void;
  onLeave: () => void;
  children?: ReactNode;
  /** The leaving action destroys something: it is drawn as such. */
  danger?: boolean;
  busy?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="confirm-dialog"
      aria-labelledby="confirm-dialog-message"
      onCancel={(event) => {
        event.preventDefault();
        onStay();
      }}
    >
      <p id="confirm-dialog-message" className="confirm-dialog__message">
        {message}
      </p>
      {children}
      <div className="confirm-dialog__actions">
        <button type="button" className="button button--primary" onClick={onStay}>
          {stayLabel}
        </button>
        <button
          type="button"
          className={`button${danger ? " button--danger" : ""}`}
          onClick={onLeave}
          disabled={busy}
          aria-busy={busy}
        >
          {leaveLabel}
        </button>
      </div>
    </dialog>
  );
}
