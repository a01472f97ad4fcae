import type { ColumnType, Generated } from "kysely";

/**
 * Row types of every table, as Kysely sees them. Times are ISO-8601 text and booleans 0/1 integers in
 * both dialects, so one migration and one query serve SQLite and PostgreSQL alike. Row types stay
 * inside repositories and services; routes speak the contract types.
 */
export interface UsersTable {
  id: string;
  email: string | null;
  phone: string | null;
  encrypted_password: string | null;
  role: string;
  app_metadata: string;
  user_metadata: string;
  email_confirmed_at: string | null;
  phone_confirmed_at: string | null;
  last_sign_in_at: string | null;
  banned_until: string | null;
  is_anonymous: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface ProfilesTable {
  user_id: string;
  name: string | null;
  phone_number: string | null;
  country_code: string | null;
  city: string | null;
  gender: string | null;
  age_group: string | null;
  from_landing_page: number;
  agree_to_reminder: number;
  agree_to_reminder_at: string | null;
  whatsapp_opt_in: number | null;
  whatsapp_opt_in_at: string | null;
  /** "en" | "ar": the language SMS and WhatsApp texts are written in. */
  language: string | null;
  /** How reminders were last turned off ("link", "reply", "profile"); null while they are on. */
  reminders_stopped_via: string | null;
  created_at: string;
  updated_at: string;
  /** IANA zone the person's browser reported (migration 0021; optional so other modules' inserts need not name it). */
  time_zone?: string | null;
  /** "best" | "save_data" | "audio_only", null: never chosen (migration 0026; optional as `time_zone`). */
  viewing_mode?: string | null;
}

/** A login-phone change waiting for the code sent to the new number. */
export interface PhoneChangesTable {
  user_id: string;
  phone: string;
  dial_code: string;
  channel: string;
  expires_at: string;
  created_at: string;
}

export interface StoriesTable {
  id: string;
  position: number;
  title_en: string;
  title_ar: string;
  subtitle_en: string;
  subtitle_ar: string;
  /** The English (and default) video; `video_url_ar` the Arabic one, null when none (migration 0017). */
  video_url: string;
  video_url_ar?: string | null;
  thumbnail_path: string | null;
  thumbnail_path_ar?: string | null;
  duration_seconds: number | null;
  created_at: string;
  updated_at: string;
  /** Saves so far (migration 0012; optional here so the rows other modules write need not name it). */
  version?: number;
  /** 1 when families see it, 0 for a draft (migration 0014; optional so other modules' inserts need not name it). */
  published?: number;
}

export interface CharactersTable {
  id: string;
  key: string;
  name_en: string;
  name_ar: string;
  thumbnail_path: string | null;
  audio_path: string | null;
  created_at: string;
  /** Saves so far (migration 0015); defaults to 0 on insert. */
  version?: number;
}

export interface QuestionsTable {
  id: string;
  story_id: string;
  position: number;
  media_path: string;
  /** The Arabic video, null when none: Arabic readers get `media_path` (migration 0017). */
  media_path_ar?: string | null;
  created_at: string;
  /** Saves so far (migration 0014). */
  version?: number;
  /** What the question's video says, per language (migration 0033); null when none was typed. */
  transcript_en?: string | null;
  transcript_ar?: string | null;
}

export interface AnswersTable {
  id: string;
  question_id: string;
  character_id: string;
  audio_path: string;
  position: number;
  created_at: string;
  /** Saves so far (migration 0014). */
  version?: number;
  /** What the voice says, per language (migration 0030); null when none was typed. */
  transcript_en?: string | null;
  transcript_ar?: string | null;
}

export interface LandingAnswersTable {
  id: string;
  character_id: string;
  audio_path: string;
  position: number;
  created_at: string;
  /** Saves so far (migration 0015); defaults to 0 on insert. */
  version?: number;
  /** What the voice says, per language (migration 0033); null when none was typed. */
  transcript_en?: string | null;
  transcript_ar?: string | null;
}

export interface InstructionsTable {
  location: string;
  media_path: string;
  media_path_ar?: string | null;
  updated_at: string;
  /** Saves so far (migration 0015); defaults to 0 on insert. */
  version?: number;
}

export interface DocumentsTable {
  key: string;
  path: string;
  path_ar?: string | null;
  updated_at: string;
  /** Saves so far (migration 0015); defaults to 0 on insert. */
  version?: number;
  /** What the greeting audio says, per language (migration 0033); null when none was typed (and for PDFs). */
  transcript_en?: string | null;
  transcript_ar?: string | null;
}

export interface SiteSettingsTable {
  id: number;
  title_en: string;
  title_ar: string;
  primary_color: string;
  site_under_maintenance: number;
  updated_at: string;
  /** Saves so far (migration 0012; optional here so the rows other modules write need not name it). */
  version?: number;
  /** Origins story media may come from, one per line (migration 0024; optional as `version`). */
  video_origins?: string;
}

/** Where a person stopped in a story, in whole seconds (migration 0026): it resumes there on any device. */
export interface PlaybackPositionsTable {
  user_id: string;
  story_id: string;
  seconds: number;
  updated_at: string;
}

export interface ProgressTable {
  user_id: string;
  story_id: string;
  story_position: number;
  watched_at: string;
}

export interface ContactSubmissionsTable {
  id: string;
  user_id: string | null;
  name: string;
  phone: string | null;
  city: string | null;
  country: string | null;
  gender: string;
  message: string;
  handled_at: string | null;
  created_at: string;
  /** SHA-256 of the sender (account, else address) and the form's idempotency key; null without a key (0019). */
  idempotency_key: string | null;
}

export interface AnalyticsEventsTable {
  id: Generated<number>;
  name: string;
  user_id: string | null;
  properties: string;
  created_at: string;
}

export interface RecordingsTable {
  id: string;
  user_id: string;
  story_id: string;
  question_index: number | null;
  object_key: string;
  content_type: string;
  size: number;
  duration_seconds: number | null;
  created_at: string;
  /** The words the storyteller typed for it (migration 0030), null when none; `version` counts those saves. */
  transcript?: string | null;
  version?: number;
}

// Auth (migration 0002-auth). users.phone holds E.164 with the leading "+"; /auth/v1 shows it without, like Supabase.
export interface SessionsTable {
  id: string;
  user_id: string;
  aal: string;
  amr: string;
  factor_id: string | null;
  user_agent: string | null;
  ip: string | null;
  created_at: string;
  updated_at: string;
  refreshed_at: string | null;
}

export interface RefreshTokensTable {
  id: Generated<number>;
  token_hash: string;
  session_id: string;
  user_id: string;
  parent_id: number | null;
  revoked: number;
  created_at: string;
  revoked_at: string | null;
}

export interface IdentitiesTable {
  id: string;
  provider_id: string;
  user_id: string;
  provider: string;
  identity_data: string;
  email: string | null;
  last_sign_in_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface MfaFactorsTable {
  id: string;
  user_id: string;
  friendly_name: string | null;
  factor_type: string;
  status: string;
  secret: string;
  phone: string | null;
  last_used_step: number | null;
  created_at: string;
  updated_at: string;
}

export interface MfaChallengesTable {
  id: string;
  factor_id: string;
  ip: string | null;
  created_at: string;
  verified_at: string | null;
}

export interface OneTimeTokensTable {
  id: string;
  user_id: string | null;
  purpose: string;
  relates_to: string;
  token_hash: string;
  attempts: number;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface FlowStateTable {
  id: string;
  auth_code_hash: string | null;
  user_id: string | null;
  code_challenge: string;
  code_challenge_method: string;
  authentication_method: string;
  relates_to: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface RateLimitsTable {
  key: string;
  count: number;
  expires_at: string;
}

export interface AuditLogTable {
  id: Generated<number>;
  user_id: string | null;
  action: string;
  ip: string | null;
  payload: string;
  created_at: string;
}

export interface SmsOutboxTable {
  id: string;
  channel: string;
  recipient: string;
  body: string;
  purpose: string | null;
  provider: string;
  status: string;
  provider_message_id: string | null;
  error: string | null;
  created_at: string;
}

export interface Database {
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  identities: IdentitiesTable;
  mfa_factors: MfaFactorsTable;
  mfa_challenges: MfaChallengesTable;
  one_time_tokens: OneTimeTokensTable;
  flow_state: FlowStateTable;
  rate_limits: RateLimitsTable;
  audit_log: AuditLogTable;
  sms_outbox: SmsOutboxTable;
  users: UsersTable;
  profiles: ProfilesTable;
  phone_changes: PhoneChangesTable;
  stories: StoriesTable;
  characters: CharactersTable;
  questions: QuestionsTable;
  answers: AnswersTable;
  landing_answers: LandingAnswersTable;
  instructions: InstructionsTable;
  documents: DocumentsTable;
  site_settings: SiteSettingsTable;
  progress: ProgressTable;
  playback_positions: PlaybackPositionsTable;
  contact_submissions: ContactSubmissionsTable;
  analytics_events: AnalyticsEventsTable;
  recordings: RecordingsTable;
  messages: MessagesTable;
  conversations: ConversationsTable;
  inbox_counts: InboxCountsTable;
  saved_replies: SavedRepliesTable;
  conversation_notes: ConversationNotesTable;
  admin_audit_log: AdminAuditLogTable;
  reminder_settings: ReminderSettingsTable;
  reminder_jobs: ReminderJobsTable;
  reminder_stop_uses: ReminderStopUsesTable;
  push_subscriptions: PushSubscriptionsTable;
  operator_presence: OperatorPresenceTable;
  operator_push_sent: OperatorPushSentTable;
  reminder_inbound_messages: ReminderInboundMessagesTable;
  secrets: SecretsTable;
}

/** Message Center (migration 0004). `id` orders a conversation and is the live stream's event id. */
export interface MessagesTable {
  id: Generated<number>;
  user_id: string;
  sender_id: string;
  sender_role: "user" | "facilitator";
  message_type: "text" | "audio";
  body: string;
  duration_seconds: number | null;
  client_id: string | null;
  created_at: string;
  /** How it came or went (migration 0026). */
  channel: Generated<"app" | "whatsapp">;
  /** An inbound WhatsApp message's provider id (Twilio's MessageSid), unique. */
  provider_message_id: Generated<string | null>;
  /**
   * The inserting transaction (migration 0032): PostgreSQL's xid8, read as a decimal string; 0 on SQLite. With `id`
   * it is the order readers of every conversation follow (modules/messages/CONTEXT.md).
   */
  tx: Generated<string | number>;
}

export interface ConversationsTable {
  user_id: string;
  last_message_id: number;
  last_message_at: string;
  user_read_id: Generated<number>;
  facilitator_read_id: Generated<number>;
  /** The family's newest message (0: none yet); migration 0013. */
  last_user_message_id: Generated<number>;
  /** The operator who took the conversation ("mine"), and when. */
  assigned_to: string | null;
  assigned_at: string | null;
  /** When the family last wrote by WhatsApp (migration 0027): the 24-hour window to answer there. */
  whatsapp_inbound_at: Generated<string | null>;
}

/** The inbox tabs' counts, one row (id 1) kept by triggers on `conversations` (migration 0031). */
export interface InboxCountsTable {
  id: number;
  conversations: number;
  unassigned: number;
}

/** The team's saved replies, each in both languages (migration 0025). */
export interface SavedRepliesTable {
  id: string;
  title: string;
  text_en: string;
  text_ar: string;
  created_at: string;
  updated_at: string;
}

/** Private notes on a conversation, operators only (migration 0025). */
export interface ConversationNotesTable {
  id: Generated<number>;
  user_id: string;
  /** Null once the author's account is gone; the note stays. */
  author_id: string | null;
  body: string;
  created_at: string;
}

/** The operator console's audit trail (migration 0005): who did what, when. */
export interface AdminAuditLogTable {
  id: Generated<number>;
  actor_id: string;
  actor_email: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  details: string;
  created_at: string;
}

/** Server secrets shared by replicas on PostgreSQL (infrastructure/secrets); JSON text values. */
export interface SecretsTable {
  name: string;
  value: string;
  created_at: string;
  updated_at: string;
}

/** Story reminders and Web Push (migration 0011). */
export interface ReminderSettingsTable {
  id: number;
  enabled: number;
  first_after_hours: number;
  repeat_after_hours: number;
  max_per_story: number;
  window_start: string;
  window_end: string;
  template_en: string;
  template_ar: string;
  updated_at: string | null;
  /** Saves so far (migration 0021): a stale save is refused, a run in progress re-reads the rules. */
  version?: number;
}

export interface ReminderJobsTable {
  id: string;
  idempotency_key: string;
  user_id: string;
  story_id: string;
  sequence: number;
  status: string;
  channel: string | null;
  attempts: number;
  due_at: string;
  next_try_at: string;
  claimed_by: string | null;
  claimed_at: string | null;
  sent_at: string | null;
  outbox_id: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface ReminderStopUsesTable {
  token_id: string;
  user_id: string;
  used_at: string;
}

/** Provider message ids the inbound webhook has handled (migration 0018): a replay of one changes nothing. */
export interface ReminderInboundMessagesTable {
  message_sid: string;
  received_at: string;
}

export interface PushSubscriptionsTable {
  endpoint: string;
  user_id: string;
  p256dh: string;
  auth: string;
  created_at: string;
  /** Migration 0029: whose alerts this browser gets: a family's (facilitator replies) or an operator's (new messages). */
  audience: ColumnType<"family" | "operator", "family" | "operator" | undefined, "family" | "operator">;
  /** The console's language when an operator subscribed; null for a family's (their profile's language is used). */
  language: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A replica's console streams of one operator (migration 0029): present while `until` is ahead. */
export interface OperatorPresenceTable {
  operator_id: string;
  replica_id: string;
  until: string;
}

/** When an operator was last pushed about a conversation (migration 0029), for coalescing. */
export interface OperatorPushSentTable {
  operator_id: string;
  conversation_user_id: string;
  sent_at: string;
}
