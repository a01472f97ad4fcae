import type { Kysely } from "kysely";
import type { DialectName } from "../dialect.ts";

/**
 * Frozen: Web Push to operators with no console open (issue 40).
 * - `push_subscriptions.audience`: "family" (a person's browser, told of facilitator replies) or "operator" (a console
 *   browser, told of families' messages); `language`: the console's language when an operator subscribed (a family's
 *   pushes follow their profile instead).
 * - `operator_presence`: one row per operator per replica while that replica holds a console stream of theirs, with an
 *   expiry each replica pushes forward on its heartbeat, so a replica that dies stops counting once its rows expire.
 * - `operator_push_sent`: when an operator was last pushed about a conversation, so pushes about one conversation are
 *   coalesced across replicas (one conditional upsert claims the next push).
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable("push_subscriptions")
    .addColumn("audience", "text", (c) => c.notNull().defaultTo("family"))
    .execute();
  await db.schema.alterTable("push_subscriptions").addColumn("language", "text").execute();
  await db.schema
    .createIndex("push_subscriptions_audience_idx")
    .on("push_subscriptions")
    .columns(["audience", "user_id"])
    .execute();

  await db.schema
    .createTable("operator_presence")
    .addColumn("operator_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("replica_id", "text", (c) => c.notNull())
    .addColumn("until", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("operator_presence_pkey", ["operator_id", "replica_id"])
    .execute();

  await db.schema
    .createTable("operator_push_sent")
    .addColumn("operator_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("conversation_user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("sent_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("operator_push_sent_pkey", ["operator_id", "conversation_user_id"])
    .execute();
}
