/**
 * Toasts: the short messages a person reads after an action (spec sections 2 and 9: bottom centre, closing after
 * TOAST_CLOSE_MS). Written by hand because the whole job is a list, a timer and a few lines of CSS; the library it
 * replaces cost about 10 KB of the first download. Any module may call `toast.error(...)`; <Toaster/> draws them.
 */
import { TOAST_CLOSE_MS } from "@hikaya/contracts";
import { useSyncExternalStore } from "react";

export type ToastKind = "success" | "error" | "info";

interface ToastItem {
  id: string;
  kind: ToastKind;
  text: string;
}

/** At most this many on screen: a burst of failures must not cover the form the person is fixing. */
const LIMIT = 3;

let items: readonly ToastItem[] = [];
const listeners = new Set<() => void>();
const timers = new Map<string, ReturnType<typeof setTimeout>>();
let counter = 0;

function emit(next: readonly ToastItem[]) {
  items = next;
  for (const listener of listeners) listener();
}

function dismiss(id: string) {
  clearTimeout(timers.get(id));
  timers.delete(id);
  if (items.some((item) => item.id === id)) emit(items.filter((item) => item.id !== id));
}

/**
 * Shows a message. A `toastId` already on screen is not shown twice (the same field error from two submits),
 * its timer starts again instead.
 */
function show(kind: ToastKind, text: string, options?: { toastId?: string }) {
  const id = options?.toastId ?? `toast-${++counter}`;
  const rest = items.filter((item) => item.id !== id);
  const next = [{ id, kind, text }, ...rest];
  for (const dropped of next.slice(LIMIT)) dismiss(dropped.id);
  clearTimeout(timers.get(id));
  timers.set(
    id,
    setTimeout(() => dismiss(id), TOAST_CLOSE_MS),
  );
  emit(next.slice(0, LIMIT));
  return id;
}

export const toast = {
  success: (text: string, options?: { toastId?: string }) => show("success", text, options),
  error: (text: string, options?: { toastId?: string }) => show("error", text, options),
  info: (text: string, options?: { toastId?: string }) => show("info", text, options),
  dismiss,
};

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const snapshot = () => items;

/** The toast area. Errors are announced at once (role="alert"), the rest politely (role="status"). */
export function Toaster({ closeLabel }: { closeLabel: string }) {
  const current = useSyncExternalStore(subscribe, snapshot, snapshot);
  return (
    <div className="toasts">
      {current.map((item) => (
        <div key={item.id} className={`toast toast--${item.kind}`} role={item.kind === "error" ? "alert" : "status"}>
          <span className="toast__text">{item.text}</span>
          <button type="button" className="toast__close" aria-label={closeLabel} onClick={() => dismiss(item.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
