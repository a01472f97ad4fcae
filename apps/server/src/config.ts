import { isIP } from "node:net";
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/** The repository root, for defaults that point into the checkout (the built web app, the demo program). */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

const bool = (fallback: boolean) =>
  z
    .enum(["true", "false", "1", "0", "yes", "no", ""])
    .optional()
    .transform((v) => (v === undefined || v === "" ? fallback : v === "true" || v === "1" || v === "yes"));

const envSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    HOST: z.string().min(1).default("0.0.0.0"),
    DATA_DIR: z.string().min(1).default("./data"),
    DATABASE_URL: z
      .string()
      .regex(/^(postgres(ql)?:\/\/|sqlite:)/, "must start with postgres://, postgresql:// or sqlite:")
      .optional(),
    // A direct PostgreSQL connection for the bus's LISTEN (a session that must stay put), so that DATABASE_URL may go
    // through PgBouncer in transaction mode. Unset: DATABASE_URL.
    DATABASE_LISTEN_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must start with postgres:// or postgresql://")
      .optional(),
    PUBLIC_URL: z.url().optional(),
    // At least 16 characters: the one secret between the server and its scraper.
    METRICS_TOKEN: z.string().min(16).optional(),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    ADMIN_EMAIL: z.email().optional(),
    ADMIN_PASSWORD: z.string().min(6, "must be at least 6 characters").optional(),
    // Sign-up needs no mailbox, so an existing account at ADMIN_EMAIL may be anyone's: made admin only when said so.
    ADMIN_EMAIL_PROMOTE_EXISTING: bool(false),
    USERNAME_EMAIL_DOMAIN: z
      .string()
      .regex(/^[a-z0-9.-]+\.[a-z]{2,}$/i, "must be a domain name like users.hikaya.app")
      .default("users.hikaya.app"),
    SEED_DEMO: bool(true),
    WEB_DIST_DIR: z.string().optional(),
    // Required with PostgreSQL: replicas need S3 ("s3"); "local" says one server keeps files on its own disk.
    STORAGE_DRIVER: z.enum(["local", "s3"]).optional(),
    // S3 media: "proxy" streams them through the app (Range, ETag); "redirect" answers 302 to a presigned
    // address, or to STORAGE_PUBLIC_URL/<bucket>/<key> when a CDN or public bucket serves them.
    STORAGE_DELIVERY: z.enum(["proxy", "redirect"]).default("proxy"),
    STORAGE_PUBLIC_URL: z.url().optional(),
    S3_BUCKET: z.string().optional(),
    S3_REGION: z.string().default("us-east-1"),
    S3_ENDPOINT: z.url().optional(),
    S3_ACCESS_KEY_ID: z.string().optional(),
    S3_SECRET_ACCESS_KEY: z.string().optional(),
    S3_FORCE_PATH_STYLE: bool(true),
    SMS_PROVIDER: z.enum(["outbox", "twilio"]).default("outbox"),
    TWILIO_ACCOUNT_SID: z.string().optional(),
    TWILIO_AUTH_TOKEN: z.string().optional(),
    TWILIO_FROM: z.string().optional(),
    TWILIO_WHATSAPP_FROM: z.string().optional(),
    TWILIO_BASE_URL: z.url().default("https://api.twilio.com"),
    NODE_ENV: z.string().optional(),
    // What to trust for X-Forwarded-For: true/false, a hop count (the load balancers in front), or addresses/CIDRs.
    TRUST_PROXY: z
      .string()
      .optional()
      .transform((v, ctx) => {
        const parsed = parseTrustProxy(v);
        if (parsed === null) {
          ctx.addIssue({ code: "custom", message: "must be true, false, a hop count, or comma-separated addresses/CIDRs" });
          return z.NEVER;
        }
        return parsed;
      }),
    // Per-IP and per-account limits on writes (plugins/write-limits.ts): tests raise or lower them.
    RATE_LIMIT_FACTOR: z.coerce.number().positive().max(1_000_000).default(1),
    // A request body (other than an upload) must arrive within this; uploads within HTTP_UPLOAD_TIMEOUT_SECONDS.
    HTTP_BODY_TIMEOUT_SECONDS: z.coerce.number().positive().max(3600).default(30),
    HTTP_UPLOAD_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(86_400).default(3600),
    HTTP_HEADERS_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(20),
    // A connection with no bytes either way for this long is closed (live-chat streams send a heartbeat).
    HTTP_IDLE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(120),
    HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(72),
    // Auth tuning: tests lower the scrypt cost and raise or lower the rate limits; defaults are production values.
    AUTH_SCRYPT_LOG_N: z.coerce.number().int().min(10).max(20).default(17),
    AUTH_RATE_LIMIT_FACTOR: z.coerce.number().positive().max(1_000_000).default(1),
    AUTH_HASH_QUEUE_MAX: z.coerce.number().int().min(0).max(100_000).default(32),
    // Like Supabase's jwt_expiry; tests set a few seconds so "after an hour" takes seconds.
    JWT_EXPIRY_SECONDS: z.coerce.number().int().min(1).max(604_800).default(3600),
    // A session not refreshed for this many days ends (0: sessions end only at log-out). Like Supabase's
    // sessions.inactivity_timeout; a family that opens the app once a month stays signed in.
    SESSION_INACTIVITY_DAYS: z.coerce.number().int().min(0).max(3650).default(90),
    // Browser origins that may call /auth/v1 ("*": any, without credentials, as Supabase), or a comma-separated list.
    AUTH_CORS_ORIGINS: z
      .string()
      .default("*")
      .transform((v, ctx) => {
        if (v.trim() === "*") return "*" as const;
        const origins = v
          .split(",")
          .map((o) => o.trim().replace(/\/$/, ""))
          .filter(Boolean);
        for (const origin of origins)
          if (!URL.canParse(origin) || new URL(origin).origin !== origin)
            ctx.addIssue({ code: "custom", message: `"${origin}" is not an origin like https://app.example.com` });
        return origins;
      }),
    // Bytes of memory the app's in-process caches may hold together; 0 turns caching off. The shares (summing to at
    // most 1, infrastructure/cache/shares.test.ts): live sessions 1/4 and verified access tokens 1/16 (auth.module.ts),
    // story list answers 3/16 (story-list-cache.ts), furthest watched orders 1/8 (last-watched.ts), profiles 1/16 (profile.service.ts),
    // /auth/v1/user answers 1/16 (user-view-cache.ts), stored files 3/16 (files/memory-cache.ts), the web build's
    // small files 1/16 (web-files.ts).
    CACHE_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(0)
      .default(64 * 1024 * 1024),
    // The storage sweep (temporary files, files no row points to) runs at start-up and then this often; 0: start-up only.
    STORAGE_SWEEP_INTERVAL_MINUTES: z.coerce.number().int().min(0).max(10_080).default(360),
    // How often each replica looks for due story reminders (0: only when an operator runs them).
    REMINDER_INTERVAL_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
    // How long a media job's claim holds without news from its worker (renewed while the job runs): after a
    // replica dies, its job is taken again this long after the last renewal. Tests set a few seconds.
    MEDIA_JOB_LEASE_SECONDS: z.coerce.number().int().min(2).max(3600).default(120),
    // Story videos (and the console's other videos) past these are refused at upload: a larger picture or a longer
    // clip costs the one media worker hours and a phone a rendition it cannot decode.
    MEDIA_MAX_VIDEO_SIDE_PX: z.coerce.number().int().min(240).max(16_384).default(4096),
    MEDIA_MAX_VIDEO_MINUTES: z.coerce.number().int().min(1).max(600).default(60),
    // Media jobs each replica runs at once per lane: videos in one, voices in the other, so a voice never waits
    // behind a story video's transcode.
    MEDIA_VIDEO_CONCURRENCY: z.coerce.number().int().min(0).max(16).default(1),
    MEDIA_VOICE_CONCURRENCY: z.coerce.number().int().min(0).max(16).default(1),
    // On the start that seeds the demo, a job for every stored video and voice without one (story 1 first), run in
    // the background at the lowest priority while the originals play. Tests turn it off.
    MEDIA_PROCESS_DEMO: bool(true),
  })
  .superRefine((env, ctx) => {
    if (env.DATABASE_LISTEN_URL && !/^postgres(ql)?:\/\//.test(env.DATABASE_URL ?? ""))
      ctx.addIssue({
        code: "custom",
        path: ["DATABASE_LISTEN_URL"],
        message: "is for PostgreSQL: set DATABASE_URL to postgres://… too (SQLite has no LISTEN)",
      });
    if (env.DATABASE_URL && !env.DATABASE_URL.startsWith("sqlite:") && env.STORAGE_DRIVER === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["STORAGE_DRIVER"],
        message:
          "must be set with PostgreSQL: s3 for several replicas (files on one replica's disk are missing on the others), or local for a single server",
      });
    if (env.STORAGE_DRIVER === "s3" && !env.S3_BUCKET)
      ctx.addIssue({ code: "custom", path: ["S3_BUCKET"], message: "is required when STORAGE_DRIVER=s3" });
    if (env.SMS_PROVIDER === "twilio")
      for (const key of ["TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "TWILIO_FROM"] as const)
        if (!env[key]) ctx.addIssue({ code: "custom", path: [key], message: "is required when SMS_PROVIDER=twilio" });
    if (env.NODE_ENV === "production" && !env.PUBLIC_URL)
      ctx.addIssue({ code: "custom", path: ["PUBLIC_URL"], message: "is required when NODE_ENV=production" });
    if (Boolean(env.ADMIN_EMAIL) !== Boolean(env.ADMIN_PASSWORD))
      ctx.addIssue({ code: "custom", path: ["ADMIN_PASSWORD"], message: "ADMIN_EMAIL and ADMIN_PASSWORD go together" });
  });

export type Env = z.infer<typeof envSchema>;

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** `listenUrl`: where the bus LISTENs, a direct connection (DATABASE_LISTEN_URL, else `url`). */
  database: { kind: "sqlite"; file: string } | { kind: "postgres"; url: string; listenUrl: string };
  publicUrl: string | undefined;
  logLevel: Env["LOG_LEVEL"];
  /** `/metrics` answers only `Authorization: Bearer <this>`; unset, `/metrics` is off (404). */
  metricsToken: string | undefined;
  admin: { email: string; password: string; promoteExisting: boolean } | undefined;
  usernameEmailDomain: string;
  seedDemo: boolean;
  webDistDir: string;
  /** Fastify's trustProxy: a boolean, a hop count, or addresses/CIDRs. */
  trustProxy: boolean | number | string[];
  /** Limits and timeouts of the HTTP edge (plugins/write-limits.ts, plugins/timeouts.ts). */
  http: {
    rateLimitFactor: number;
    bodyTimeoutMs: number;
    uploadTimeoutMs: number;
    headersTimeoutMs: number;
    idleTimeoutMs: number;
    keepAliveTimeoutMs: number;
  };
  auth: {
    /** scrypt cost as log2(N); 17 is OWASP's N=2^17, r=8, p=1. */
    scryptLogN: number;
    /** Password checks that may wait for a free core; one more answers 503 with Retry-After at once. */
    hashQueueMax: number;
    /** Multiplies every rate limit (tests and benchmarks raise it, security tests lower it). */
    rateLimitFactor: number;
    /** Lifetime of an access token; refresh tokens keep the session going beyond it. */
    jwtExpirySeconds: number;
    /** A session unused for longer ends; 0 means only log-out ends it. */
    sessionInactivityDays: number;
    /** AUTH_CORS_ORIGINS: "*" or the origins allowed to call /auth/v1 from a browser. */
    corsOrigins: "*" | string[];
  };
  /** Seconds between two looks for due story reminders on each replica; 0 turns the timer off. */
  reminderIntervalSeconds: number;
  /** A media job's claim lapses this long after its worker's last renewal (a dead replica's job is then taken again). */
  mediaJobLeaseSeconds: number;
  /** What an uploaded video may be (larger or longer is refused at upload) and the media jobs run at once per lane. */
  media: {
    maxVideoSidePx: number;
    maxVideoSeconds: number;
    videoConcurrency: number;
    voiceConcurrency: number;
  };
  /** MEDIA_PROCESS_DEMO: enqueue the demo's media on the start that seeds it. */
  mediaProcessDemo: boolean;
  /** Minutes between storage sweeps after the one at start-up; 0 sweeps at start-up only. */
  storageSweepIntervalMinutes: number;
  /** CACHE_MAX_BYTES: the in-process caches' memory, in bytes, all together. */
  cacheMaxBytes: number;
  storage:
    | { driver: "local"; root: string }
    | {
        driver: "s3";
        bucket: string;
        region: string;
        endpoint: string | undefined;
        accessKeyId: string | undefined;
        secretAccessKey: string | undefined;
        forcePathStyle: boolean;
        delivery: "proxy" | "redirect";
        publicUrl: string | undefined;
      };
  sms:
    | { provider: "outbox" }
    | {
        provider: "twilio";
        accountSid: string;
        authToken: string;
        from: string;
        whatsappFrom: string | undefined;
        baseUrl: string;
      };
}

export class ConfigError extends Error {}

/** Reads and validates the environment once. A bad value throws one line naming the variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = issue?.path.join(".") ?? "environment";
    throw new ConfigError(`Invalid configuration: ${name} ${issue?.message ?? "is invalid"}`);
  }
  const env = parsed.data;
  const dataDir = resolve(env.DATA_DIR);
  const database: Config["database"] =
    env.DATABASE_URL && !env.DATABASE_URL.startsWith("sqlite:")
      ? { kind: "postgres", url: env.DATABASE_URL, listenUrl: env.DATABASE_LISTEN_URL ?? env.DATABASE_URL }
      : { kind: "sqlite", file: sqliteFile(env.DATABASE_URL, dataDir) };
  return {
    port: env.PORT,
    host: env.HOST,
    dataDir,
    database,
    publicUrl: env.PUBLIC_URL?.replace(/\/$/, ""),
    logLevel: env.LOG_LEVEL,
    metricsToken: env.METRICS_TOKEN,
    admin:
      env.ADMIN_EMAIL && env.ADMIN_PASSWORD
        ? { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD, promoteExisting: env.ADMIN_EMAIL_PROMOTE_EXISTING }
        : undefined,
    usernameEmailDomain: env.USERNAME_EMAIL_DOMAIN.toLowerCase(),
    seedDemo: env.SEED_DEMO,
    webDistDir: resolve(env.WEB_DIST_DIR ?? resolve(REPO_ROOT, "apps/web/dist")),
    trustProxy: env.TRUST_PROXY,
    http: {
      rateLimitFactor: env.RATE_LIMIT_FACTOR,
      bodyTimeoutMs: env.HTTP_BODY_TIMEOUT_SECONDS * 1000,
      uploadTimeoutMs: env.HTTP_UPLOAD_TIMEOUT_SECONDS * 1000,
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_SECONDS * 1000,
      idleTimeoutMs: env.HTTP_IDLE_TIMEOUT_SECONDS * 1000,
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
    },
    auth: {
      scryptLogN: env.AUTH_SCRYPT_LOG_N,
      hashQueueMax: env.AUTH_HASH_QUEUE_MAX,
      rateLimitFactor: env.AUTH_RATE_LIMIT_FACTOR,
      jwtExpirySeconds: env.JWT_EXPIRY_SECONDS,
      sessionInactivityDays: env.SESSION_INACTIVITY_DAYS,
      corsOrigins: env.AUTH_CORS_ORIGINS,
    },
    reminderIntervalSeconds: env.REMINDER_INTERVAL_SECONDS,
    mediaJobLeaseSeconds: env.MEDIA_JOB_LEASE_SECONDS,
    media: {
      maxVideoSidePx: env.MEDIA_MAX_VIDEO_SIDE_PX,
      maxVideoSeconds: env.MEDIA_MAX_VIDEO_MINUTES * 60,
      videoConcurrency: env.MEDIA_VIDEO_CONCURRENCY,
      voiceConcurrency: env.MEDIA_VOICE_CONCURRENCY,
    },
    mediaProcessDemo: env.MEDIA_PROCESS_DEMO,
    storageSweepIntervalMinutes: env.STORAGE_SWEEP_INTERVAL_MINUTES,
    cacheMaxBytes: env.CACHE_MAX_BYTES,
    storage:
      env.STORAGE_DRIVER === "s3"
        ? {
            driver: "s3",
            bucket: env.S3_BUCKET ?? "",
            region: env.S3_REGION,
            endpoint: env.S3_ENDPOINT,
            accessKeyId: env.S3_ACCESS_KEY_ID,
            secretAccessKey: env.S3_SECRET_ACCESS_KEY,
            forcePathStyle: env.S3_FORCE_PATH_STYLE,
            delivery: env.STORAGE_DELIVERY,
            publicUrl: env.STORAGE_PUBLIC_URL,
          }
        : { driver: "local", root: resolve(dataDir, "storage") },
    sms:
      env.SMS_PROVIDER === "twilio"
        ? {
            provider: "twilio",
            accountSid: env.TWILIO_ACCOUNT_SID ?? "",
            authToken: env.TWILIO_AUTH_TOKEN ?? "",
            from: env.TWILIO_FROM ?? "",
            whatsappFrom: env.TWILIO_WHATSAPP_FROM,
            baseUrl: env.TWILIO_BASE_URL,
          }
        : { provider: "outbox" },
  };
}

/** The running configuration with some variables replaced: operator commands that write somewhere else. */
export function loadConfigWith(overrides: Record<string, string>): Config {
  return loadConfig({ ...process.env, ...overrides });
}

function sqliteFile(url: string | undefined, dataDir: string): string {
  const path = url?.slice("sqlite:".length).replace(/^\/\//, "");
  if (!path) return resolve(dataDir, "hikaya.db");
  return isAbsolute(path) ? path : resolve(path);
}

/** TRUST_PROXY as Fastify takes it: a boolean, a hop count, or a list of addresses/CIDRs; null when unreadable. */
function parseTrustProxy(raw: string | undefined): boolean | number | string[] | null {
  const value = (raw ?? "").trim().toLowerCase();
  if (value === "" || value === "false" || value === "no") return false;
  if (value === "true" || value === "yes") return true;
  if (/^\d+$/.test(value)) return Number(value) === 0 ? false : Number(value);
  const entries = value.split(",").map((e) => e.trim());
  const address = /^([0-9a-f:.]+)(\/\d{1,3})?$/;
  const named = ["loopback", "linklocal", "uniquelocal"];
  return entries.every((e) => named.includes(e) || (address.test(e) && isIP(e.split("/")[0] ?? "") !== 0)) ? entries : null;
}
