import { useEffect, useState } from "react";

/**
 * Whole seconds left until `until` (a Date.now() time), re-rendering each second while any remain; 0 once passed
 * or when there is nothing to wait for. Read from the clock at each render, so a new `until` counts from now.
 */
export function useSecondsLeft(until: number | null): number {
  const [, tick] = useState(0);
  const left = until === null ? 0 : Math.max(0, Math.ceil((until - Date.now()) / 1000));
  useEffect(() => {
    if (left === 0) return;
    const timer = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(timer);
  }, [left]);
  return left;
}
