import type { Kysely } from "kysely";
import { autoIncrementPrimaryKey, autoIncrementType, type DialectName } from "../dialect.ts";

/** Frozen: the story program, people and their progress. Never edit; add a new migration instead. */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("users")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("email", "text", (c) => c.unique())
    .addColumn("phone", "text", (c) => c.unique())
    .addColumn("encrypted_password", "text")
    .addColumn("role", "text", (c) => c.notNull().defaultTo("authenticated"))
    .addColumn("app_metadata", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("user_metadata", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("email_confirmed_at", "text")
    .addColumn("phone_confirmed_at", "text")
    .addColumn("last_sign_in_at", "text")
    .addColumn("banned_until", "text")
    .addColumn("is_anonymous", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("deleted_at", "text")
    .execute();

  await db.schema
    .createTable("profiles")
    .addColumn("user_id", "text", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
    .addColumn("name", "text")
    .addColumn("phone_number", "text")
    .addColumn("country_code", "text")
    .addColumn("city", "text")
    .addColumn("gender", "text")
    .addColumn("age_group", "text")
    .addColumn("from_landing_page", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("agree_to_reminder", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("whatsapp_opt_in", "integer")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("stories")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("position", "integer", (c) => c.notNull().unique())
    .addColumn("title_en", "text", (c) => c.notNull())
    .addColumn("title_ar", "text", (c) => c.notNull())
    .addColumn("subtitle_en", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("subtitle_ar", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("video_url", "text", (c) => c.notNull())
    .addColumn("thumbnail_path", "text")
    .addColumn("duration_seconds", "real")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("characters")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("key", "text", (c) => c.notNull().unique())
    .addColumn("name_en", "text", (c) => c.notNull())
    .addColumn("name_ar", "text", (c) => c.notNull())
    .addColumn("thumbnail_path", "text")
    .addColumn("audio_path", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("questions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("story_id", "text", (c) => c.notNull().references("stories.id").onDelete("cascade"))
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("media_path", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addUniqueConstraint("questions_story_position_unique", ["story_id", "position"])
    .execute();

  await db.schema
    .createTable("answers")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("question_id", "text", (c) => c.notNull().references("questions.id").onDelete("cascade"))
    .addColumn("character_id", "text", (c) => c.notNull().references("characters.id").onDelete("cascade"))
    .addColumn("audio_path", "text", (c) => c.notNull())
    .addColumn("position", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("answers_question_idx").on("answers").columns(["question_id", "position"]).execute();

  await db.schema
    .createTable("landing_answers")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("character_id", "text", (c) => c.notNull().references("characters.id").onDelete("cascade"))
    .addColumn("audio_path", "text", (c) => c.notNull())
    .addColumn("position", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("instructions")
    .addColumn("location", "text", (c) => c.primaryKey())
    .addColumn("media_path", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("documents")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("path", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("site_settings")
    .addColumn("id", "integer", (c) => c.primaryKey())
    .addColumn("title_en", "text", (c) => c.notNull())
    .addColumn("title_ar", "text", (c) => c.notNull())
    .addColumn("primary_color", "text", (c) => c.notNull())
    .addColumn("site_under_maintenance", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("progress")
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("story_id", "text", (c) => c.notNull())
    .addColumn("story_position", "integer", (c) => c.notNull())
    .addColumn("watched_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("progress_pk", ["user_id", "story_id"])
    .execute();

  await db.schema
    .createTable("contact_submissions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("phone", "text")
    .addColumn("city", "text")
    .addColumn("country", "text")
    .addColumn("gender", "text", (c) => c.notNull())
    .addColumn("message", "text", (c) => c.notNull())
    .addColumn("handled_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("analytics_events")
    .addColumn("id", autoIncrementType(dialect), autoIncrementPrimaryKey(dialect))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("user_id", "text")
    .addColumn("properties", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("analytics_events_name_time_idx").on("analytics_events").columns(["name", "created_at"]).execute();
}
