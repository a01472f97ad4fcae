/**
 * A count the tab's title starts with ("(3) Message inbox · Hikaya"), set by whoever knows it (the console's unread
 * conversations) and read by the title's writer (app/screen-focus.ts), so neither imports the other.
 */
let count = 0;
const listeners = new Set<() => void>();

export function setTitleCount(next: number) {
  if (next === count) return;
  count = next;
  for (const listener of listeners) listener();
}

export const titleCount = () => count;

export function subscribeTitleCount(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export const withTitleCount = (title: string, n: number) => (n > 0 ? `(${n}) ${title}` : title);
