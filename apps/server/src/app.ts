import Fastify, { type FastifyInstance } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import type { Config } from "./config.ts";
import { type DatabaseHandle, type DB, migrateToLatest, openDatabase } from "./db/database.ts";
import { createFileStorage, type FileStorage } from "./infrastructure/files/index.ts";
import { AccessTokens } from "./modules/auth/access-tokens.ts";
import { loadSigningKeys, type SigningKeys } from "./modules/auth/signing-keys.ts";
import { contentRoutes } from "./modules/content/content.routes.ts";
import { healthRoutes } from "./modules/health/health.routes.ts";
import { settingsRoutes } from "./modules/settings/settings.routes.ts";
import { storageRoutes } from "./modules/storage/storage.routes.ts";
import { webRoutes } from "./modules/web/web.routes.ts";
import { installErrorHandler } from "./plugins/error-handler.ts";
import { seedDemoProgram } from "./seed/demo-seed.ts";

/** What every module may use. Built once at start-up; tests build their own. */
export interface AppDeps {
  config: Config;
  database: DatabaseHandle;
  db: DB;
  storage: FileStorage;
  auth: {
    keys: SigningKeys;
    tokens: AccessTokens;
    /** Whether a session is still signed in; access tokens of ended sessions are refused. */
    sessions: { isActive(sessionId: string): Promise<boolean> };
  };
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
    const deps: AppDeps = {
      config,
      database,
      db: database.db,
      storage: createFileStorage(config.storage),
      auth: {
        keys,
        tokens: new AccessTokens(keys, `${config.publicUrl ?? ""}/auth/v1`),
        sessions: { isActive: async () => true },
      },
    };
    app.decorate("deps", deps);
    if (config.seedDemo) await seedDemoProgram(deps, app.log);
  } catch (error) {
    if (ownsDatabase) await database.close();
    throw error;
  }
  if (ownsDatabase) app.addHook("onClose", async () => database.close());

  installErrorHandler(app);
  await app.register(healthRoutes, { prefix: "/api" });
  await app.register(settingsRoutes, { prefix: "/api" });
  await app.register(contentRoutes, { prefix: "/api" });
  await app.register(storageRoutes, { prefix: "/storage/v1" });
  await app.register(webRoutes);
  return app;
}
