import Fastify from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import type { Config } from "./config.ts";
import { type DatabaseHandle, migrateToLatest, openDatabase } from "./db/database.ts";
import type { App, AppDeps } from "./deps.ts";
import { createMessageBus } from "./infrastructure/bus/index.ts";
import { createFileStorage } from "./infrastructure/files/index.ts";
import { CachingFileStorage, FILES_SHARE } from "./infrastructure/files/memory-cache.ts";
import { countingBus } from "./infrastructure/metrics/counting-bus.ts";
import { AppMetrics } from "./infrastructure/metrics/metrics.ts";
import { createSecretStore } from "./infrastructure/secrets/index.ts";
import { createMessageProvider } from "./infrastructure/sms/index.ts";
import { accountSettingsRoutes } from "./modules/account/account.routes.ts";
import { registerAccountDeletion } from "./modules/account/deletion.service.ts";
import { registerAdminAccess } from "./modules/admin/access.ts";
import { adminRoutes } from "./modules/admin/admin.routes.ts";
import { serviceRoleKeyRoutes } from "./modules/admin/service-role-key.routes.ts";
import { analyticsRoutes } from "./modules/analytics/analytics.routes.ts";
import { createAuthDeps } from "./modules/auth/auth.module.ts";
import { gotrueRoutes } from "./modules/auth/gotrue.routes.ts";
import { registerRouteAccess } from "./modules/auth/guards.ts";
import { phoneAuthRoutes } from "./modules/auth/phone-auth.routes.ts";
import { loadSigningKeys, refuseStrayKeyFile } from "./modules/auth/signing-keys.ts";
import { contentRoutes } from "./modules/content/content.routes.ts";
import { geoRoutes } from "./modules/geo/geo.routes.ts";
import { healthRoutes } from "./modules/health/health.routes.ts";
import { keepsakeModule } from "./modules/keepsake/keepsake.routes.ts";
import { enqueueUnprocessed } from "./modules/media/backfill.ts";
import { enqueueStoredFile } from "./modules/media/enqueue.ts";
import { mediaRoutes } from "./modules/media/media.routes.ts";
import { startMediaWorker } from "./modules/media/worker.ts";
import { messageRoutes } from "./modules/messages/messages.routes.ts";
import { profileRoutes } from "./modules/profile/profile.routes.ts";
import { startProfileCache } from "./modules/profile/profile.service.ts";
import { programRoutes } from "./modules/program/program.routes.ts";
import { storyVideosInOrder } from "./modules/program/program.service.ts";
import { startStoryListCache } from "./modules/program/story-list-cache.ts";
import { progressRoutes } from "./modules/progress/progress.routes.ts";
import { startProgressCache } from "./modules/progress/progress.service.ts";
import { recordingsRoutes } from "./modules/recordings/recordings.routes.ts";
import { PushDelivery, type PushOptions } from "./modules/reminders/push-delivery.ts";
import { reminderRoutes } from "./modules/reminders/reminders.routes.ts";
import { settingsRoutes } from "./modules/settings/settings.routes.ts";
import { FileEvents } from "./modules/storage/file-events.ts";
import { storageRoutes } from "./modules/storage/storage.routes.ts";
import { moveStoryMediaPrivate, startStorageSweep } from "./modules/storage/storage-upkeep.ts";
import { usersRoutes } from "./modules/users/users.routes.ts";
import { formPostRoutes } from "./modules/web/form-posts.routes.ts";
import { webRoutes } from "./modules/web/web.routes.ts";
import { registerApiDocs } from "./plugins/api-docs.ts";
import { installErrorHandler } from "./plugins/error-handler.ts";
import {
  clientErrorHandler,
  frameworkErrors,
  installErrorShapeGuard,
  installInputRules,
  trustProxyOption,
} from "./plugins/http-edge.ts";
import { installMetrics } from "./plugins/metrics.ts";
import { installSecretQueryRefusal, requestSerializer } from "./plugins/secret-queries.ts";
import { registerSecurityHeaders } from "./plugins/security-headers.ts";
import { installBodyTimeout } from "./plugins/timeouts.ts";
import { installTokenApiBody } from "./plugins/token-api-body.ts";
import { installWriteLimits } from "./plugins/write-limits.ts";
import { seedDemoProgram } from "./seed/demo-seed.ts";

export interface BuildOptions {
  /** Pino options or false; tests pass false. */
  logger?: boolean | object;
  /** Human-readable log lines (pino-pretty) instead of JSON: for a person at a terminal, not for log collectors. */
  prettyLogs?: boolean;
  /** Reuse an open database (tests share one per file). */
  database?: DatabaseHandle;
  /** Where Web Push may connect besides public https push services: tests' local push service. Never from config. */
  push?: PushOptions;
  /**
   * The scale bench's "before" (bench/scale.ts): messages stored one at a time under one lock for the whole database,
   * and one NOTIFY per message. Nothing else sets it.
   */
  legacyMessageOrder?: boolean;
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
  const app = Fastify({
    logger: loggerOptions(config, options),
    trustProxy: trustProxyOption(config.trustProxy),
    bodyLimit: 1024 * 1024,
    // Timeouts of the HTTP edge (README "Limits and timeouts"); a JSON body's own deadline is plugins/timeouts.ts.
    // How often Node checks that deadline is plugins/timeouts.ts' (a tenth of it), set before listen.
    http: { headersTimeout: config.http.headersTimeoutMs },
    requestTimeout: Math.max(config.http.uploadTimeoutMs, config.http.headersTimeoutMs),
    connectionTimeout: config.http.idleTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    frameworkErrors,
    clientErrorHandler,
    // Unique per process (random prefix) and across replicas; a UUID per request cost about 2 % of a small request.
    genReqId: requestIds(),
    requestIdHeader: "x-request-id",
    return503OnClosing: true,
    forceCloseConnections: "idle",
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const metrics = new AppMetrics();
  const database = options.database ?? openDatabase(config.database);
  const ownsDatabase = !options.database;
  // Counting the bus's signals costs a map entry per publish: only when the metrics are on.
  const plainBus = await createMessageBus(config.database, options.legacyMessageOrder ? { coalesceMs: 0 } : {});
  const bus = config.metricsToken ? countingBus(plainBus, metrics) : plainBus;
  let seededDemo = false;
  try {
    await migrateToLatest(database);
    const secrets = createSecretStore(config, database);
    await refuseStrayKeyFile(secrets, config.dataDir);
    const keys = await loadSigningKeys(secrets);
    app.addHook("onClose", async () => keys.close());
    const messages = createMessageProvider(config.sms, database.db);
    const storage = new CachingFileStorage(
      await createFileStorage(config.storage),
      Math.floor(config.cacheMaxBytes * FILES_SHARE),
      undefined,
      metrics.cache("files"),
    );
    await storage.check?.();
    app.addHook("onClose", await storage.listen(bus));
    const deps: AppDeps = {
      config,
      database,
      db: database.db,
      secrets,
      storage,
      fileEvents: new FileEvents(),
      bus,
      auth: await createAuthDeps(config, database, keys, messages, bus, metrics),
      messages,
      metrics,
      push: new PushDelivery(options.push),
      ...(options.legacyMessageOrder ? { legacyMessageOrder: true } : {}),
    };
    app.decorate("deps", deps);
    // Auth's admin API deletes accounts through account's deletion, registered here so auth imports no module.
    registerAccountDeletion(deps);
    // Media processes what the other modules store; storage only announces it, so storage imports no module above it.
    deps.fileEvents.onFileStored((file) => enqueueStoredFile(deps, file));
    if (config.admin) await deps.auth.service.ensureAdmin(config.admin);
    seededDemo = config.seedDemo && (await seedDemoProgram(deps, app.log));
    await moveStoryMediaPrivate(deps, app.log);
  } catch (error) {
    await bus.close();
    if (ownsDatabase) await database.close();
    throw error;
  }
  // Read caches that need no database round trip while nothing changed (invalidated on every replica).
  const stopCaches = [await startStoryListCache(app.deps), await startProgressCache(app.deps), await startProfileCache(app.deps)];
  app.addHook("onClose", async () => {
    for (const stop of stopCaches) await stop();
  });
  // Pushes still running after their request answered read the database: they finish before it closes.
  app.addHook("preClose", async () => app.deps.push.idle());
  if (ownsDatabase) app.addHook("onClose", async () => database.close());
  app.addHook("onClose", async () => app.deps.bus.close());
  startStorageSweep(app, config.storageSweepIntervalMinutes);
  startMediaWorker(app, {
    leaseMs: config.mediaJobLeaseSeconds * 1000,
    videoConcurrency: config.media.videoConcurrency,
    voiceConcurrency: config.media.voiceConcurrency,
  });
  // Only the start that seeded the demo looks for unprocessed files: listing every stored source (a whole bucket on
  // S3) at each start of each replica would be work without news; later uploads are enqueued as they are stored.
  if (seededDemo && config.mediaProcessDemo) processUnprocessedMedia(app);

  installErrorHandler(app);
  await installMetrics(app, metrics, config.metricsToken); // before every route: its hook times them all
  await registerSecurityHeaders(app, config);
  installInputRules(app);
  installSecretQueryRefusal(app);
  installErrorShapeGuard(app);
  installWriteLimits(app, config.http.rateLimitFactor); // before every route: it reads each route as it is added
  installBodyTimeout(app, config.http.bodyTimeoutMs);
  installTokenApiBody(app);
  registerApiDocs(app); // before every route, so the OpenAPI document sees them all
  registerAdminAccess(app); // before every route: each /api/admin route must have a role rule
  registerRouteAccess(app); // and every other /api route declares who it lets in, checked before its body is read
  await app.register(healthRoutes, { prefix: "/api" });
  await app.register(gotrueRoutes, { prefix: "/auth/v1" });
  await app.register(phoneAuthRoutes, { prefix: "/api" });
  await app.register(accountSettingsRoutes, { prefix: "/api" });
  await app.register(settingsRoutes, { prefix: "/api" });
  await app.register(geoRoutes, { prefix: "/api" });
  await app.register(contentRoutes, { prefix: "/api" });
  // The program API (spec section 7, all but auth and chat): each area its own encapsulated plugin, so one's
  // content-type parsers (multipart, text/plain beacons) do not leak into another's.
  for (const routes of [programRoutes, progressRoutes, usersRoutes, profileRoutes, recordingsRoutes, analyticsRoutes])
    await app.register(routes, { prefix: "/api" });
  await app.register(storageRoutes, { prefix: "/storage/v1" });
  await app.register(messageRoutes, { prefix: "/api" });
  await app.register(adminRoutes, { prefix: "/api/admin" });
  await app.register(serviceRoleKeyRoutes, { prefix: "/api/admin" });
  await app.register(reminderRoutes, { prefix: "/api" });
  await app.register(mediaRoutes);
  await app.register(keepsakeModule);
  await app.register(formPostRoutes); // the public screens' forms posted before (or without) scripts
  await app.register(webRoutes);
  return app;
}

/**
 * Pino's options: the level, secrets in headers redacted, request URLs without the query strings of auth routes
 * (plugins/secret-queries.ts). A caller's own options (a test's stream) keep those two rules.
 */
function loggerOptions(config: Config, options: BuildOptions): false | object {
  if (options.logger === false) return false;
  return {
    level: config.logLevel,
    redact: ["req.headers.authorization", "req.headers.apikey", "req.headers['x-auth-token']"],
    ...(options.prettyLogs
      ? {
          transport: {
            target: "pino-pretty",
            options: { translateTime: "SYS:HH:MM:ss", ignore: "pid,hostname", singleLine: true },
          },
        }
      : {}),
    ...(typeof options.logger === "object" ? options.logger : {}),
    serializers: { req: requestSerializer },
  };
}

/** Request ids for log lines: a random prefix for this process and a counter, cheaper than a UUID per request. */
function requestIds(): () => string {
  const prefix = crypto.randomUUID().slice(0, 8);
  let n = 0;
  return () => `${prefix}-${(++n).toString(36)}`;
}

/**
 * Issue 38: the demo (and anything else stored before processing existed) gets its HLS versions in the background,
 * story 1 first, so a new install shows the weak-connection pipeline at work; the originals play until each is ready.
 * Idempotent: a source with a job of any state is left alone, so later starts enqueue nothing again. Not awaited:
 * start-up does not wait on a scan of storage.
 */
function processUnprocessedMedia(app: App): void {
  void (async () => {
    const first = await storyVideosInOrder(app.deps);
    const { enqueued } = await enqueueUnprocessed(app.deps, { first });
    if (enqueued.length > 0) app.log.info({ enqueued: enqueued.length }, "unprocessed media enqueued");
  })().catch((error: unknown) => app.log.error({ err: error }, "could not enqueue unprocessed media"));
}
