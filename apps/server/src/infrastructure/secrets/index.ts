import type { Config } from "../../config.ts";
import type { DatabaseHandle } from "../../db/database.ts";
import { FileSecretStore } from "./file-secret-store.ts";
import { PostgresSecretStore } from "./postgres-secret-store.ts";
import type { SecretStore } from "./secret-store.ts";

export { FileSecretStore } from "./file-secret-store.ts";
export * from "./secret-store.ts";

/** In the database when it is PostgreSQL (shared by every replica), else under DATA_DIR/keys. */
export function createSecretStore(config: Pick<Config, "dataDir">, database: DatabaseHandle): SecretStore {
  return database.dialect === "postgres" ? new PostgresSecretStore(database.db) : new FileSecretStore(config.dataDir);
}
