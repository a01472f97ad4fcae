/**
 * An audit entry as a sentence in the operator's language ("Amal changed the title of the story “The Well”"),
 * built from its action and details. Pure, so tests reach it; the page passes its `t`.
 */
import type { AuditEntry } from "@hikaya/contracts";

export type Translate = (key: string, vars?: Record<string, unknown>) => string;

/** Fields a save can change, in the order a sentence names them; each has `audit.fields.<name>`. */
const FIELDS = [
  "titleEn",
  "titleAr",
  "subtitleEn",
  "subtitleAr",
  "videoUrl",
  "nameEn",
  "nameAr",
  "thumbnail",
  "audio",
  "characterId",
  "media",
  "primaryColor",
  "siteUnderMaintenance",
  "videoOrigins",
] as const;

/** Actions with their own sentence under `audit.sentences.<action>`; any other gets the generic one. */
const SENTENCES = new Set([
  "story.create",
  "story.update",
  "story.delete",
  "story.reorder",
  "story.thumbnail",
  "story.publish",
  "story.unpublish",
  "question.create",
  "question.update",
  "question.delete",
  "question.reorder",
  "answer.create",
  "answer.update",
  "answer.delete",
  "answer.reorder",
  "character.create",
  "character.update",
  "character.delete",
  "landing_answer.create",
  "landing_answer.update",
  "landing_answer.delete",
  "landing_answer.reorder",
  "instruction.update",
  "document.update",
  "settings.update",
  "settings.maintenance_on",
  "settings.maintenance_off",
  "contact.handled",
  "contact.reopened",
  "file.upload",
  "keys.service_role_shown",
  "team.invite",
  "team.role",
  "team.remove",
  "reminders.settings",
  "reminders.run",
  "account.delete",
  "person.block",
  "person.unblock",
  "person.delete",
  "person.reset_code",
  "person.keepsake.open",
  "person.family_message.delete",
  "conversation.assign",
  "conversation.unassign",
]);

const text = (value: unknown) => (typeof value === "string" && value.trim() ? value : null);
const num = (value: unknown) => (typeof value === "number" ? value : null);

/** The names a list of moves gives ("“A” from 3 to 1, “B” from 1 to 2"), at most three, then "and N more". */
function moves(details: Record<string, unknown>, ar: boolean, t: Translate, language: string): string {
  const moved = Array.isArray(details.moved) ? (details.moved as Record<string, unknown>[]) : [];
  const parts = moved.slice(0, 3).map((m) =>
    t("audit.move", {
      name: text(ar ? (m.titleAr ?? m.nameAr) : (m.titleEn ?? m.nameEn)) ?? text(m.titleEn ?? m.nameEn) ?? "?",
      from: m.from,
      to: m.to,
    }),
  );
  if (moved.length > 3) parts.push(t("audit.more", { count: moved.length - 3 }));
  return list(parts, language);
}

function list(parts: string[], language: string): string {
  return new Intl.ListFormat(language, { style: "long", type: "conjunction" }).format(parts);
}

export function auditSentence(entry: AuditEntry, language: string, t: Translate): string {
  const ar = language === "ar";
  const d = entry.details;
  const who = entry.actorName || entry.actorEmail || t("audit.someone");
  // What the target is called now, else what the entry recorded when it was made (a deleted story keeps its title).
  const target =
    text(ar ? entry.targetNameAr : entry.targetNameEn) ??
    text(ar ? (d.titleAr ?? d.nameAr) : (d.titleEn ?? d.nameEn)) ??
    text(entry.targetNameEn ?? d.titleEn ?? d.nameEn) ??
    t("audit.unnamed");
  const changed = FIELDS.filter((f) => {
    const v = d[f];
    return v !== null && typeof v === "object" && "from" in v && "to" in v;
  });
  const vars: Record<string, unknown> = {
    who,
    target,
    fields: list(
      changed.map((f) => t(`audit.fields.${f}`)),
      language,
    ),
    count: changed.length,
    order: num(d.order) ?? "?",
    name: text(ar ? d.nameAr : d.nameEn) ?? text(d.nameEn) ?? t("audit.unnamed"),
    moves: moves(d, ar, t, language),
    location: entry.targetId ? t(`media.locations.${entry.targetId}`, { defaultValue: entry.targetId }) : "?",
    document: entry.targetId ? t(`media.documents.${entry.targetId}`, { defaultValue: entry.targetId }) : "?",
    role: text(d.role) ? t(`team.roles.${d.role}`, { defaultValue: d.role }) : "?",
    from: typeof d.from === "string" ? t(`team.roles.${d.from}`, { defaultValue: d.from }) : "?",
    to: typeof d.to === "string" ? t(`team.roles.${d.to}`, { defaultValue: d.to }) : "?",
    // Team entries name the person (recorded when the entry was made); older entries did not.
    member: text(d.member) ?? t("audit.teamMember"),
  };
  if (SENTENCES.has(entry.action)) {
    // An edit that names no field it knows (older entries) still reads as a sentence.
    const key = entry.action.endsWith(".update") && changed.length === 0 ? `${entry.action}_plain` : entry.action;
    return t(`audit.sentences.${key}`, { ...vars, defaultValue: t(`audit.sentences.${entry.action}`, vars) });
  }
  return t("audit.sentences.other", { ...vars, action: t(`audit.actions.${entry.action}`, { defaultValue: entry.action }) });
}
