import { type ChatMessage, type ConversationNote, NOTE_TEXT_MAX } from "@hikaya/contracts";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { errorText } from "../../lib/errors.ts";
import { formatChatTime } from "../../lib/format.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";
import { addNote, inboxQueries } from "./inbox-api.ts";

export type TimelineItem = { kind: "message"; message: ChatMessage } | { kind: "note"; note: ConversationNote };

/**
 * Messages and private notes in one timeline, by time. While older messages are still unloaded, notes from before the
 * oldest loaded message wait with them, so a note never shows above a gap.
 */
export function timelineOf(messages: ChatMessage[], notes: ConversationNote[], hasMore: boolean): TimelineItem[] {
  const from = hasMore ? messages[0]?.createdAt : undefined;
  const items: TimelineItem[] = [
    ...messages.map((message) => ({ kind: "message" as const, message })),
    ...notes.filter((n) => !from || n.createdAt >= from).map((note) => ({ kind: "note" as const, note })),
  ];
  const at = (i: TimelineItem) => (i.kind === "message" ? i.message.createdAt : i.note.createdAt);
  // Stable: a note written in the same millisecond as a message stays after it.
  return items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => at(a.item).localeCompare(at(b.item)) || a.index - b.index)
    .map((x) => x.item);
}

/** A private note in the timeline: marked as one, with its author and time; families never see it. */
export function NoteItem({ note, me }: { note: ConversationNote; me: string | null }) {
  const { t, i18n } = useTranslation("inbox");
  const author = note.authorId === me ? t("youAuthor") : note.authorName || t("facilitator");
  return (
    <li className="inbox-note" data-testid="private-note">
      <div className="inbox-note__card">
        <span className="inbox-note__meta">
          {t("notes.label")} · <bdi>{author}</bdi> ·{" "}
          <time dateTime={note.createdAt}>{formatChatTime(note.createdAt, i18n.language)}</time>
        </span>
        <p className="inbox-note__text" dir="auto">
          {note.text}
        </p>
      </div>
    </li>
  );
}

/** "Add a private note": a short form that opens above the composer; the note joins the timeline once stored. */
export function NoteForm({ userId, onDone }: { userId: string; onDone(): void }) {
  const { t } = useTranslation("inbox");
  const id = useId();
  const client = useQueryClient();
  const [text, setText] = useState("");
  const save = useMutation({
    mutationFn: () => addNote(userId, text),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: inboxQueries.notes(userId).queryKey });
      setText("");
      onDone();
    },
    onError: (error) => toast.error(errorText(error)),
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    if (text.trim()) save.mutate();
  }
  return (
    <form className="inbox-note-form" onSubmit={submit} aria-label={t("notes.add")}>
      <label htmlFor={id}>{t("notes.field")}</label>
      <p className="admin-hint">{t("notes.hint")}</p>
      <textarea
        id={id}
        className="admin-input"
        dir="auto"
        rows={2}
        required
        maxLength={NOTE_TEXT_MAX}
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      <div className="admin-actions">
        <button type="button" className="admin-button admin-button--small" onClick={onDone}>
          {t("notes.cancel")}
        </button>
        <button type="submit" className="admin-button admin-button--small admin-button--primary" disabled={save.isPending}>
          {t("notes.save")}
        </button>
      </div>
    </form>
  );
}
