import Fastify, { type FastifyInstance } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import type { Config } from "./config.ts";
import { type DatabaseHandle, type DB, migrateToLatest, openDatabase } from "./db/database.ts";
import { createMessageBus, type MessageBus } from "./infrastructure/bus/index.ts";
import { createFileStorage, type FileStorage } from "./infrastructure/files/index.ts";
import { createMessageProvider, type MessageProvider } from "./infrastructure/sms/index.ts";
import { adminRoutes } from "./modules/admin/admin.routes.ts";
import type { AccessTokens } from "./modules/auth/access-tokens.ts";
import { accountRoutes } from "./modules/auth/account.routes.ts";
import { createAuthDeps } from "./modules/auth/auth.module.ts";
import type { AuthService } from "./modules/auth/auth.service.ts";
import { gotrueRoutes } from "./modules/auth/gotrue.routes.ts";
import { loadSigningKeys, type SigningKeys } from "./modules/auth/signing-keys.ts";
import { contentRoutes } from "./modules/content/content.routes.ts";
import { geoRoutes } from "./modules/geo/geo.routes.ts";
import { healthRoutes } from "./modules/health/health.routes.ts";
import { messageRoutes } from "./modules/messages/messages.routes.ts";
import { programApi } from "./modules/program/program-api.ts";
import { settingsRoutes } from "./modules/settings/settings.routes.ts";
import { storageRoutes } from "./modules/storage/storage.routes.ts";
import { webRoutes } from "./modules/web/web.routes.ts";
import { registerApiDocs } from "./plugins/api-docs.ts";
import { installErrorHandler } from "./plugins/error-handler.ts";
import { seedDemoProgram } from "./seed/demo-seed.ts";

/** What every module may use. Built once at start-up; tests build their own. */
export interface AppDeps {
  config: Config;
  database: DatabaseHandle;
  db: DB;
  storage: FileStorage;
  /** Cross-process signals (live chat): in-process on SQLite, LISTEN/NOTIFY on PostgreSQL. */
  bus: MessageBus;
  auth: {
    keys: SigningKeys;
    tokens: AccessTokens;
    /** Whether a session is still signed in; access tokens of ended sessions are refused. */
    sessions: { isActive(sessionId: string): Promise<boolean> };
    /** Accounts, sessions, codes, MFA and admin operations behind /auth/v1 and the phone-number API. */
    service: AuthService;
  };
  /** SMS / WhatsApp (and e-mail to the outbox): the outbox by default, a Twilio-style provider by env. */
  messages: MessageProvider;
}

declare module "fastify" {
  interface FastifyInstance {
    deps: AppDeps;
  }
}

export type App = FastifyInstance;

export interface BuildOptions {
  /** Pino options or false; tests pass false. */
  logger?: boolean | object;
  /** Reuse an open database (tests share one per file). */
  database?: DatabaseHandle;
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
  const app = Fastify({
    logger: options.logger ?? {
      level: config.logLevel,
      redact: ["req.headers.authorization", "req.headers.apikey", "req.headers['x-auth-token']"],
    },
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    genReqId: () => crypto.randomUUID(),
    requestIdHeader: "x-request-id",
    return503OnClosing: true,
    forceCloseConnections: "idle",
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const database = options.database ?? openDatabase(config.database);
  const ownsDatabase = !options.database;
  try {
    await migrateToLatest(database);
    const keys = await loadSigningKeys(config.dataDir);
    const messages = createMessageProvider(config.sms, database.db);
    const deps: AppDeps = {
      config,
      database,
      db: database.db,
      storage: createFileStorage(config.storage),
      bus: createMessageBus(config.database),
      auth: createAuthDeps(config, database.db, keys, messages),
      messages,
    };
    app.decorate("deps", deps);
    if (config.admin) await deps.auth.service.ensureAdmin(config.admin);
    if (config.seedDemo) await seedDemoProgram(deps, app.log);
  } catch (error) {
    if (ownsDatabase) await database.close();
    throw error;
  }
  if (ownsDatabase) app.addHook("onClose", async () => database.close());
  app.addHook("onClose", async () => app.deps.bus.close());

  installErrorHandler(app);
  await registerApiDocs(app); // before every route, so the OpenAPI document sees them all
  await app.register(healthRoutes, { prefix: "/api" });
  await app.register(gotrueRoutes, { prefix: "/auth/v1" });
  await app.register(accountRoutes, { prefix: "/api" });
  await app.register(settingsRoutes, { prefix: "/api" });
  await app.register(geoRoutes, { prefix: "/api" });
  await app.register(contentRoutes, { prefix: "/api" });
  await app.register(programApi, { prefix: "/api" });
  await app.register(storageRoutes, { prefix: "/storage/v1" });
  await app.register(messageRoutes, { prefix: "/api" });
  await app.register(adminRoutes, { prefix: "/api/admin" });
  await app.register(webRoutes);
  return app;
}
