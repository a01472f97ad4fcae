import type { Kysely } from "kysely";
import { autoIncrementPrimaryKey, autoIncrementType, type DialectName } from "../dialect.ts";

/**
 * Frozen: what auth keeps beside `users` (0001). Secrets are stored hashed: refresh tokens (SHA-256),
 * one-time codes and reset tokens (HMAC-SHA256), PKCE auth codes (SHA-256). Never edit; add a new migration.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("sessions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("aal", "text", (c) => c.notNull().defaultTo("aal1"))
    .addColumn("amr", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("factor_id", "text")
    .addColumn("user_agent", "text")
    .addColumn("ip", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("refreshed_at", "text")
    .execute();
  await db.schema.createIndex("sessions_user_idx").on("sessions").column("user_id").execute();

  await db.schema
    .createTable("refresh_tokens")
    .addColumn("id", autoIncrementType(dialect), autoIncrementPrimaryKey(dialect))
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("session_id", "text", (c) => c.notNull().references("sessions.id").onDelete("cascade"))
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("parent_id", "integer")
    .addColumn("revoked", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("revoked_at", "text")
    .execute();
  await db.schema.createIndex("refresh_tokens_session_idx").on("refresh_tokens").column("session_id").execute();

  await db.schema
    .createTable("identities")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("provider_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("provider", "text", (c) => c.notNull())
    .addColumn("identity_data", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("email", "text")
    .addColumn("last_sign_in_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addUniqueConstraint("identities_provider_unique", ["provider_id", "provider"])
    .execute();
  await db.schema.createIndex("identities_user_idx").on("identities").column("user_id").execute();

  await db.schema
    .createTable("mfa_factors")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("friendly_name", "text")
    .addColumn("factor_type", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("secret", "text", (c) => c.notNull())
    .addColumn("phone", "text")
    .addColumn("last_used_step", "integer")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("mfa_factors_user_idx").on("mfa_factors").column("user_id").execute();

  await db.schema
    .createTable("mfa_challenges")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("factor_id", "text", (c) => c.notNull().references("mfa_factors.id").onDelete("cascade"))
    .addColumn("ip", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("verified_at", "text")
    .execute();

  await db.schema
    .createTable("one_time_tokens")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.references("users.id").onDelete("cascade"))
    .addColumn("purpose", "text", (c) => c.notNull())
    .addColumn("relates_to", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("used_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("one_time_tokens_hash_idx").on("one_time_tokens").column("token_hash").execute();
  await db.schema
    .createIndex("one_time_tokens_lookup_idx")
    .on("one_time_tokens")
    .columns(["relates_to", "purpose", "created_at"])
    .execute();

  await db.schema
    .createTable("flow_state")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("auth_code_hash", "text", (c) => c.unique())
    .addColumn("user_id", "text", (c) => c.references("users.id").onDelete("cascade"))
    .addColumn("code_challenge", "text", (c) => c.notNull())
    .addColumn("code_challenge_method", "text", (c) => c.notNull())
    .addColumn("authentication_method", "text", (c) => c.notNull())
    .addColumn("relates_to", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("used_at", "text")
    .execute();
  await db.schema.createIndex("flow_state_user_idx").on("flow_state").columns(["user_id", "created_at"]).execute();

  await db.schema
    .createTable("rate_limits")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("count", "integer", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("rate_limits_expiry_idx").on("rate_limits").column("expires_at").execute();

  await db.schema
    .createTable("audit_log")
    .addColumn("id", autoIncrementType(dialect), autoIncrementPrimaryKey(dialect))
    .addColumn("user_id", "text")
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("ip", "text")
    .addColumn("payload", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("audit_log_user_idx").on("audit_log").columns(["user_id", "created_at"]).execute();

  await db.schema
    .createTable("sms_outbox")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("channel", "text", (c) => c.notNull())
    .addColumn("recipient", "text", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("purpose", "text")
    .addColumn("provider", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("provider_message_id", "text")
    .addColumn("error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("sms_outbox_time_idx").on("sms_outbox").columns(["created_at"]).execute();
}
