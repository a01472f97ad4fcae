/** Plain values only (no zod), so the web app can import them without pulling in the schema library. */
/** Business constants of spec section 9. */
export const TOAST_CLOSE_MS = 3000;
export const LANDING_AUTO_ADVANCE_MS = 3000;
export const MENU_FADE_MS = 500;
export const RECORDER_IDLE_HINT_MS = 10_000;
export const SPINNER_COLOR = "#4fa94d";
export const SPINNER_SIZE = 50;
export const DEFAULT_PRIMARY_COLOR = "#237a47";
export const MIN_PASSWORD_LENGTH = 6;

/** Session refresh (spec section 9): a tick every 30 s; refresh when 3 ticks or fewer remain before expiry. */
export const AUTH_REFRESH_TICK_MS = 30_000;
export const AUTH_REFRESH_THRESHOLD_TICKS = 3;
/** Retryable refresh failures are retried with backoff from 200 ms, doubling (spec section 8). */
export const AUTH_RETRY_BASE_MS = 200;

/** Recording thresholds (spec section 9): question index decides the next screen. */
export const RECORDING_INSTEAD_OF_ADD_WEBSITE_FROM_INDEX = 2;
export const SAVE_REQUIRES_UPLOAD_ABOVE_INDEX = 2;
export const SECOND_RECORDING_SCREEN_ABOVE_INDEX = 16;

/** Message Center is offered once the profile's watchedStories has more than this many items. */
export const MESSAGE_CENTER_MIN_WATCHED = 2;

export const LANGUAGES = ["en", "ar"] as const;
export type Language = (typeof LANGUAGES)[number];
export const FALLBACK_LANGUAGE: Language = "ar";
/**
 * The person's chosen language, also kept in a cookie (the app keeps it in localStorage) so the server can name
 * the right language's strings among a screen's preloads before the app runs.
 */
export const LANGUAGE_COOKIE = "hikaya-lang";

export const GENDERS = ["Male", "Female"] as const;
export type Gender = (typeof GENDERS)[number];
export const CONTACT_GENDERS = ["Male", "Female", "Not specified"] as const;
export const AGE_GROUPS = ["Upto 18", "19-30", "31-50", "51+"] as const;
export type AgeGroup = (typeof AGE_GROUPS)[number];

export const WATCH_STATUSES = ["Active", "Deleted", "Locked"] as const;
export type WatchStatus = (typeof WATCH_STATUSES)[number];

/** Instruction video locations (spec section 2), plus the Message Center's. */
export const INSTRUCTION_LOCATIONS = [
  "Add Website",
  "Record Thoughts",
  "Record thoughts, 2nd chance",
  "Reset Password",
  "Edit Profile",
  "Landing Page",
  "Message Center",
] as const;
export type InstructionLocation = (typeof INSTRUCTION_LOCATIONS)[number];

/** Storage buckets. Public ones are served at /storage/v1/object/public/<bucket>/<path>. */
export const PUBLIC_BUCKETS = ["thumbnails", "videos", "question-media", "audio", "images", "instructions", "documents"] as const;
export const PRIVATE_BUCKETS = ["recordings", "voice-notes", "story-media"] as const;
export type PublicBucket = (typeof PUBLIC_BUCKETS)[number];
export type PrivateBucket = (typeof PRIVATE_BUCKETS)[number];
export type Bucket = PublicBucket | PrivateBucket;
export const publicObjectPath = (bucket: PublicBucket, path: string) => `/storage/v1/object/public/${bucket}/${path}`;
/**
 * A story's video, question media and family answers stay private until the story is unlocked for the person: rows
 * keep this reference, and the API hands out a short-lived signed link (`/storage/v1/object/sign/...`) instead.
 */
export const STORY_MEDIA_BUCKET = "story-media" as const;
export const storyMediaPath = (key: string) => `/storage/v1/object/authenticated/${STORY_MEDIA_BUCKET}/${key}`;

/** The longest search the console's lists accept; a longer one is refused with `search_too_long`. */
export const SEARCH_MAX_LENGTH = 200;

/**
 * Places in a prerendered screen the server fills per request (issue 38: the first screen is real before any script):
 * the element carries `data-fill="<slot>"` and the server adds the address the operator set in the console (the
 * landing video's `src` and `poster`, a document's `href`), which a build cannot know.
 */
export const PRERENDER_FILL_ATTRIBUTE = "data-fill";
export const PRERENDER_SLOTS = { landingVideo: "landing-video", terms: "terms", privacy: "privacy" } as const;
export type PrerenderSlot = (typeof PRERENDER_SLOTS)[keyof typeof PRERENDER_SLOTS];
