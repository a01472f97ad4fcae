import type { WatchStatus } from "@hikaya/contracts";

/** Spec section 4: with L the furthest watched order, O = L+1 Active, O <= L Deleted, O > L+1 Locked. */
export function watchStatusOf(order: number, lastWatched: number): WatchStatus {
  if (order === lastWatched + 1) return "Active";
  if (order <= lastWatched) return "Deleted";
  return "Locked";
}
