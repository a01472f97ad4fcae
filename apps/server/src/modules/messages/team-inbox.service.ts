import type { ConversationAssignment, ConversationNote, Operator } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { AppError, forbidden } from "../../errors.ts";
import type { Actor } from "../audit/audit.service.ts";
import type { AuthContext } from "../auth/guards.ts";
import type { LiveHub } from "./live-hub.ts";
import { displayNameOf, senderNames } from "./messages.repository.ts";
import type { MessagesService } from "./messages.service.ts";
import * as repo from "./team-inbox.repository.ts";

/** The console role in an account's app_metadata (JSON text), if any. */
function roleIn(appMetadata: string): "admin" | "facilitator" | null {
  try {
    const role = (JSON.parse(appMetadata) as { role?: unknown }).role;
    return role === "admin" || role === "facilitator" ? role : null;
  } catch {
    return null;
  }
}

/**
 * The team's side of a conversation: private notes (operators only, never in a family's API or stream) and handing a
 * conversation to a colleague. Both are told live to every console on every replica through the hub's bus channels.
 */
export class TeamInboxService {
  readonly #deps: AppDeps;
  readonly #messages: MessagesService;
  readonly #hub: LiveHub;

  constructor(deps: AppDeps, messages: MessagesService, hub: LiveHub) {
    this.#deps = deps;
    this.#messages = messages;
    this.#hub = hub;
  }

  async notes(conversationUserId: string): Promise<ConversationNote[]> {
    await this.#messages.ensureConversationOwner(conversationUserId);
    const rows = await repo.listNotes(this.#deps.db, conversationUserId);
    const names = await senderNames(this.#deps.db, [...new Set(rows.flatMap((r) => (r.author_id ? [r.author_id] : [])))]);
    return rows.map((r) => ({
      id: String(r.id),
      conversation: r.user_id,
      text: r.body,
      authorId: r.author_id,
      authorName: (r.author_id && names.get(r.author_id)) || "",
      createdAt: r.created_at,
    }));
  }

  async addNote(conversationUserId: string, author: AuthContext, text: string): Promise<ConversationNote> {
    await this.#messages.ensureConversationOwner(conversationUserId);
    const row = await repo.insertNote(this.#deps.db, {
      user_id: conversationUserId,
      author_id: author.userId,
      body: text,
      created_at: new Date().toISOString(),
    });
    // Stored before it is told; a lost signal leaves other consoles a note behind until their next read.
    await this.#hub.announceNote(conversationUserId).catch(() => undefined);
    const names = await senderNames(this.#deps.db, [author.userId]);
    return {
      id: String(row.id),
      conversation: row.user_id,
      text: row.body,
      authorId: author.userId,
      authorName: names.get(author.userId) ?? "",
      createdAt: row.created_at,
    };
  }

  /** Whom a conversation can be handed to: every operator (or the one `id`), by the name the console shows. */
  async operators(id?: string): Promise<Operator[]> {
    const rows = await repo.listOperatorAccounts(this.#deps.db, id);
    return rows
      .filter((r) => roleIn(r.app_metadata) !== null)
      .map((r) => ({ userId: r.id, name: displayNameOf(r.user_metadata) || r.name || r.email || r.phone || "" }));
  }

  /**
   * Hands a conversation to an operator (null: to nobody). An admin may always; a facilitator only while it is theirs
   * (403 otherwise). The target must be an operator (400 `not_an_operator`).
   */
  async handOver(conversationUserId: string, caller: AuthContext, actor: Actor, operatorId: string | null) {
    if (operatorId !== null && (await this.operators(operatorId)).length === 0)
      throw new AppError("not_an_operator", "Conversations can only be handed to a member of the team");
    const allowed = (current: string | null) => {
      if (caller.operatorRole !== "admin" && current !== caller.userId)
        throw forbidden("Only its owner or an admin can hand this conversation over");
    };
    return this.#messages.assign(conversationUserId, actor, operatorId, allowed) satisfies Promise<ConversationAssignment>;
  }
}
