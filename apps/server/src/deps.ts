// The dependency types every module may use, apart from app.ts (which imports every module), so that the
// server's import graph stays a tree. Type-only imports of adapters' interfaces; no module's runtime code.
import type { FastifyInstance } from "fastify";
import type { Config } from "./config.ts";
import type { DatabaseHandle, DB } from "./db/database.ts";
import type { MessageBus } from "./infrastructure/bus/bus.ts";
import type { FileStorage } from "./infrastructure/files/file-storage.ts";
import type { AppMetrics } from "./infrastructure/metrics/metrics.ts";
import type { SecretStore } from "./infrastructure/secrets/secret-store.ts";
import type { MessageProvider } from "./infrastructure/sms/sms-provider.ts";
import type { AccessTokens } from "./modules/auth/access-tokens.ts";
import type { AccountDeletionHook } from "./modules/auth/account-deletion.hook.ts";
import type { AuthService } from "./modules/auth/auth.service.ts";
import type { LiveSessions } from "./modules/auth/live-sessions.ts";
import type { HashQueueStats } from "./modules/auth/password-hasher.ts";
import type { PhoneAuthService } from "./modules/auth/phone-auth.service.ts";
import type { SigningKeys } from "./modules/auth/signing-keys.ts";
import type { PushDelivery } from "./modules/reminders/push-delivery.ts";
import type { FileEvents } from "./modules/storage/file-events.ts";

/** What every module may use. Built once at start-up; tests build their own. */
export interface AppDeps {
  config: Config;
  database: DatabaseHandle;
  db: DB;
  /** Secrets shared by every replica (see infrastructure/secrets/secret-store.ts for how to use it). */
  secrets: SecretStore;
  storage: FileStorage;
  /** "A file was stored": the modules that store files announce it, the media module listens (wired in app.ts). */
  fileEvents: FileEvents;
  /** Cross-process signals (live chat): in-process on SQLite, LISTEN/NOTIFY on PostgreSQL. */
  bus: MessageBus;
  auth: {
    keys: SigningKeys;
    tokens: AccessTokens;
    /** Whether a session is still signed in; access tokens of ended sessions are refused. */
    sessions: Pick<LiveSessions, "isActive" | "knownActive" | "onForget">;
    /** Accounts, sessions, codes, MFA and admin operations behind /auth/v1 and the phone-number API. */
    service: AuthService;
    /** The spec's phone-number API (/api/sign-up, send-otp, verify-otp, reset and change password, users). */
    phoneAuth: PhoneAuthService;
    /** The whole deletion of an account (modules/account registers it), which `/auth/v1`'s admin API runs. */
    accountDeletion: Pick<AccountDeletionHook, "register" | "run">;
    /** The bounded queue every password hash waits in (password-hasher.ts), as the metrics read it. */
    hasher: HashQueueStats;
  };
  /** SMS / WhatsApp (and e-mail to the outbox): the outbox by default, a Twilio-style provider by env. */
  messages: MessageProvider;
  /** Web Push sent after a request answered: where it may connect, and what still runs (tests and shutdown wait). */
  push: PushDelivery;
  /** What /metrics reports (infrastructure/metrics/metrics.ts): each call a no-op until METRICS_TOKEN is set. */
  metrics: AppMetrics;
  /** The scale bench's "before" design (app.ts BuildOptions): one lock for every message insert. */
  legacyMessageOrder?: boolean;
}

declare module "fastify" {
  interface FastifyInstance {
    deps: AppDeps;
  }
}

export type App = FastifyInstance;
