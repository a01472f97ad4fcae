import type { Language } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { notifyOperator, operatorsWithPush, type PushMessage } from "../reminders/push.service.ts";
import { findAssignee, findPerson, type MessageRow } from "./messages.repository.ts";
import { internationalPhone } from "./messages.service.ts";
import * as alertsRepo from "./operator-alerts.repository.ts";
import { presentOperators } from "./operator-presence.service.ts";

/**
 * At most one push per conversation per operator in this many minutes (later messages in it wait for the console),
 * unless the operator opened a console in between: then they caught up, and the next message pushes again.
 */
export const OPERATOR_PUSH_COALESCE_MINUTES = 10;
/**
 * An unassigned conversation's message goes to every operator who turned push on and has no console open, at most
 * this many (the most recently subscribed first): a team, not a broadcast list.
 */
export const OPERATOR_PUSH_MAX_UNASSIGNED = 20;

type Kind = "text" | "audio" | "whatsappText" | "whatsappAudio";

/**
 * The push's words. No message text: a lock screen shows it to whoever holds the phone, and a family's messages can be
 * private (health, family matters); the operator reads it in the console. The family's display name, and what kind
 * of message it was, are enough to decide to open it.
 */
const TEXTS = {
  en: {
    title: (name: string) => `New message from ${name}`,
    someone: "a family",
    body: {
      text: "A message. Tap to open the conversation.",
      audio: "A voice message. Tap to open the conversation.",
      whatsappText: "A WhatsApp message. Tap to open the conversation.",
      whatsappAudio: "A WhatsApp voice note. Tap to open the conversation.",
    },
  },
  ar: {
    title: (name: string) => `رسالة جديدة من ${name}`,
    someone: "إحدى العائلات",
    body: {
      text: "رسالة. اضغط لفتح المحادثة.",
      audio: "رسالة صوتية. اضغط لفتح المحادثة.",
      whatsappText: "رسالة عبر واتساب. اضغط لفتح المحادثة.",
      whatsappAudio: "رسالة صوتية عبر واتساب. اضغط لفتح المحادثة.",
    },
  },
} as const satisfies Record<Language, unknown>;

const kindOf = (row: MessageRow): Kind =>
  row.channel === "whatsapp"
    ? row.message_type === "audio"
      ? "whatsappAudio"
      : "whatsappText"
    : row.message_type === "audio"
      ? "audio"
      : "text";

/** The name the console shows for a family: their profile's, else their number, else their e-mail. */
function familyName(person: Awaited<ReturnType<typeof findPerson>>): string | null {
  if (!person) return null;
  return person.name?.trim() || internationalPhone(person) || person.email || null;
}

type Deps = Pick<AppDeps, "db" | "secrets" | "config" | "push">;

/**
 * Web Push to operators who have no console open (issue 40): a family's message (app text, voice note, WhatsApp)
 * reaches its conversation's assignee, or, unassigned, the operators who turned push on (OPERATOR_PUSH_MAX_UNASSIGNED);
 * never one with a console open on any replica (operator-presence.service.ts), and at most once per conversation per
 * operator in OPERATOR_PUSH_COALESCE_MINUTES (claimed in the database, so replicas agree). Runs after the family's send
 * answered (`deps.push`), so a push never delays or fails it. A tap opens the conversation in the console.
 */
export class OperatorAlerts {
  readonly #deps: Deps;
  readonly #log: (error: unknown) => void;
  readonly #now: () => Date;

  constructor(deps: Deps, log: (error: unknown) => void, now: () => Date = () => new Date()) {
    this.#deps = deps;
    this.#log = log;
    this.#now = now;
  }

  /** A message was stored: if a family wrote it, starts telling the operators who should hear of it. */
  stored(row: MessageRow): void {
    if (row.sender_role !== "user") return;
    this.#deps.push.run(() => this.#alert(row).catch(this.#log));
  }

  async #alert(row: MessageRow): Promise<void> {
    const { db } = this.#deps;
    const conversation = row.user_id;
    const now = this.#now();
    const assignee = (await findAssignee(db, conversation))?.assigned_to ?? null;
    const subscribed = await operatorsWithPush(this.#deps, {
      among: assignee ? [assignee] : undefined,
      limit: assignee ? 1 : OPERATOR_PUSH_MAX_UNASSIGNED,
      now,
    });
    const present = await presentOperators(db, subscribed, now);
    const away = subscribed.filter((id) => !present.has(id));
    if (away.length === 0) return;
    const name = familyName(await findPerson(db, conversation));
    const kind = kindOf(row);
    const messageIn = (lang: Language): PushMessage => ({
      title: TEXTS[lang].title(name ?? TEXTS[lang].someone),
      body: TEXTS[lang].body[kind],
      url: `/admin/inbox/${encodeURIComponent(conversation)}`,
      // The console's own desktop notification for a conversation has this tag: one replaces the other.
      tag: `hikaya-inbox-${conversation}`,
      lang,
    });
    const since = new Date(now.getTime() - OPERATOR_PUSH_COALESCE_MINUTES * 60_000).toISOString();
    await Promise.all(
      away.map(async (operatorId) => {
        if (!(await alertsRepo.claimPush(db, operatorId, conversation, now.toISOString(), since))) return;
        await notifyOperator(this.#deps, operatorId, messageIn, this.#deps.push.options);
      }),
    );
  }
}
