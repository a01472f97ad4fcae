/** A saved reply as the composer offers it: already in the language it will be sent in. */
export interface QuickReply {
  id: string;
  title: string;
  text: string;
}

/** What the list shows for the composer's text: everything after a leading "/" filters titles and texts. */
export function matchingReplies(replies: readonly QuickReply[], query: string): QuickReply[] {
  const q = query.trim().toLocaleLowerCase();
  if (!q) return [...replies];
  return replies.filter((r) => r.title.toLocaleLowerCase().includes(q) || r.text.toLocaleLowerCase().includes(q));
}

/** The draft after picking `reply`: it replaces a "/…" being typed, else follows what is written. */
export function insertReply(draft: string, reply: QuickReply): string {
  if (draft.startsWith("/") || !draft.trim()) return reply.text;
  return `${draft.trimEnd()} ${reply.text}`;
}
