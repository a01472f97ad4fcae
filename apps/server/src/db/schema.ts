import type { Generated } from "kysely";

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
  whatsapp_opt_in: number | null;
  created_at: string;
  updated_at: string;
}

export interface StoriesTable {
  id: string;
  position: number;
  title_en: string;
  title_ar: string;
  subtitle_en: string;
  subtitle_ar: string;
  video_url: string;
  thumbnail_path: string | null;
  duration_seconds: number | null;
  created_at: string;
  updated_at: string;
}

export interface CharactersTable {
  id: string;
  key: string;
  name_en: string;
  name_ar: string;
  thumbnail_path: string | null;
  audio_path: string | null;
  created_at: string;
}

export interface QuestionsTable {
  id: string;
  story_id: string;
  position: number;
  media_path: string;
  created_at: string;
}

export interface AnswersTable {
  id: string;
  question_id: string;
  character_id: string;
  audio_path: string;
  position: number;
  created_at: string;
}

export interface LandingAnswersTable {
  id: string;
  character_id: string;
  audio_path: string;
  position: number;
  created_at: string;
}

export interface InstructionsTable {
  location: string;
  media_path: string;
  updated_at: string;
}

export interface DocumentsTable {
  key: string;
  path: string;
  updated_at: string;
}

export interface SiteSettingsTable {
  id: number;
  title_en: string;
  title_ar: string;
  primary_color: string;
  site_under_maintenance: number;
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
}

export interface AnalyticsEventsTable {
  id: Generated<number>;
  name: string;
  user_id: string | null;
  properties: string;
  created_at: string;
}

export interface Database {
  users: UsersTable;
  profiles: ProfilesTable;
  stories: StoriesTable;
  characters: CharactersTable;
  questions: QuestionsTable;
  answers: AnswersTable;
  landing_answers: LandingAnswersTable;
  instructions: InstructionsTable;
  documents: DocumentsTable;
  site_settings: SiteSettingsTable;
  progress: ProgressTable;
  contact_submissions: ContactSubmissionsTable;
  analytics_events: AnalyticsEventsTable;
}
