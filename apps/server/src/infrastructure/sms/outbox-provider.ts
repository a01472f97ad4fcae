import type { DB } from "../../db/database.ts";
import {
  listOutboxMessages,
  type MessageProvider,
  type OutboxListOptions,
  type OutboxRow,
  type OutgoingMessage,
  recordOutboxMessage,
  type SentMessage,
} from "./sms-provider.ts";

/** The default: every message is stored in `sms_outbox` for admins to read (console, GET /api/admin/sms-outbox). */
export class OutboxProvider implements MessageProvider {
  readonly name = "outbox";
  readonly #db: DB;

  constructor(db: DB) {
    this.#db = db;
  }

  list(options: OutboxListOptions): Promise<OutboxRow[]> {
    return listOutboxMessages(this.#db, options);
  }

  async send(message: OutgoingMessage): Promise<SentMessage> {
    return { id: await recordOutboxMessage(this.#db, message, { provider: this.name, status: "stored" }) };
  }
}
