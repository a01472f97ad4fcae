import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.ts";

describe("loadConfig", () => {
  it("defaults to SQLite under DATA_DIR and port 8080", () => {
    const config = loadConfig({ DATA_DIR: "/tmp/hikaya-x" });
    expect(config.port).toBe(8080);
    expect(config.database).toEqual({ kind: "sqlite", file: "/tmp/hikaya-x/hikaya.db" });
    expect(config.storage).toEqual({ driver: "local", root: "/tmp/hikaya-x/storage" });
    expect(config.mediaJobLeaseSeconds).toBe(120);
  });

  it("reads a media job's lease in seconds", () => {
    expect(loadConfig({ MEDIA_JOB_LEASE_SECONDS: "5" }).mediaJobLeaseSeconds).toBe(5);
  });

  it("bounds uploaded videos at 4096 px a side and 60 minutes, one job per lane, unless told otherwise", () => {
    expect(loadConfig({}).media).toEqual({
      maxVideoSidePx: 4096,
      maxVideoSeconds: 3600,
      videoConcurrency: 1,
      voiceConcurrency: 1,
    });
    const media = loadConfig({
      MEDIA_MAX_VIDEO_SIDE_PX: "1920",
      MEDIA_MAX_VIDEO_MINUTES: "5",
      MEDIA_VOICE_CONCURRENCY: "2",
    }).media;
    expect(media).toEqual({ maxVideoSidePx: 1920, maxVideoSeconds: 300, videoConcurrency: 1, voiceConcurrency: 2 });
    expect(() => loadConfig({ MEDIA_MAX_VIDEO_SIDE_PX: "0" })).toThrow(ConfigError);
  });

  it("chooses PostgreSQL for a postgres:// DATABASE_URL", () => {
    const config = loadConfig({ DATABASE_URL: "postgres://u@127.0.0.1:5432/db", STORAGE_DRIVER: "local" });
    // The bus LISTENs on the same database unless DATABASE_LISTEN_URL says where.
    expect(config.database).toEqual({
      kind: "postgres",
      url: "postgres://u@127.0.0.1:5432/db",
      listenUrl: "postgres://u@127.0.0.1:5432/db",
    });
  });

  it("LISTENs on DATABASE_LISTEN_URL, a direct connection, when DATABASE_URL goes through PgBouncer", () => {
    const config = loadConfig({
      DATABASE_URL: "postgres://u@127.0.0.1:6432/db",
      DATABASE_LISTEN_URL: "postgresql://u@10.0.0.5:5432/db",
      STORAGE_DRIVER: "local",
    });
    expect(config.database).toEqual({
      kind: "postgres",
      url: "postgres://u@127.0.0.1:6432/db",
      listenUrl: "postgresql://u@10.0.0.5:5432/db",
    });
  });

  it.each([
    [{ PORT: "eighty" }, /^Invalid configuration: PORT /],
    [{ DATABASE_URL: "mysql://x" }, /^Invalid configuration: DATABASE_URL must start with postgres/],
    [{ STORAGE_DRIVER: "s3" }, /^Invalid configuration: S3_BUCKET is required when STORAGE_DRIVER=s3$/],
    [{ ADMIN_EMAIL: "a@b.co" }, /ADMIN_PASSWORD ADMIN_EMAIL and ADMIN_PASSWORD go together/],
    [{ DATABASE_LISTEN_URL: "mysql://x" }, /^Invalid configuration: DATABASE_LISTEN_URL must start with postgres/],
    [{ DATABASE_LISTEN_URL: "postgres://u@h/db" }, /^Invalid configuration: DATABASE_LISTEN_URL is for PostgreSQL/],
    [{ SMS_PROVIDER: "pigeon" }, /^Invalid configuration: SMS_PROVIDER /],
    // Under 2 s, a renewal delayed by a busy database would hand a running job to a second worker.
    [{ MEDIA_JOB_LEASE_SECONDS: "1" }, /^Invalid configuration: MEDIA_JOB_LEASE_SECONDS /],
    [{ MEDIA_JOB_LEASE_SECONDS: "2.5" }, /^Invalid configuration: MEDIA_JOB_LEASE_SECONDS /],
  ])("names the bad variable in one line: %o", (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
