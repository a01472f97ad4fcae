import { useEffect, useRef } from "react";

/** A modal confirmation on the native <dialog>: focus is trapped and Escape means "no". */
export function ConfirmDialog({
  open,
  message,
  stayLabel,
  leaveLabel,
  onStay,
  onLeave,
}: {
  open: boolean;
  message: string;
  stayLabel: string;
  leaveLabel: string;
  onStay: () => void;
  onLeave: () => void;
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
      <div className="confirm-dialog__actions">
        <button type="button" className="button button--primary" onClick={onStay}>
          {stayLabel}
        </button>
        <button type="button" className="button" onClick={onLeave}>
          {leaveLabel}
        </button>
      </div>
    </dialog>
  );
}
