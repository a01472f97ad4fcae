/**
 * Server secrets that every replica must share (signing keys, the one-time-code HMAC secret, VAPID keys).
 *
 * How to use it (one call, at start-up):
 *
 *   const vapid = await secrets.getOrCreate("vapid-keys", () => generateVapidKeys());
 *
 * `getOrCreate(name, create)` returns the value stored under `name`; when there is none yet it calls
 * `create()` once, stores the result and returns it. When several processes ask at the same moment, all of
 * them get the one value that was stored first (a losing `create()` result is thrown away), so `create`
 * must have no side effects beyond computing the value. Values are anything JSON can hold.
 * `update(name, change)` replaces a value (key rotation); `get(name)` reads without creating; `watch(name, onChange)`
 * (file store) tells of a replacement made by another process, such as `npm run keys:rotate`.
 *
 * Drivers: with SQLite, one file per secret under DATA_DIR/keys (mode 0600), as before this store existed;
 * with PostgreSQL, the `secrets` table (migration 0008), created under an advisory lock so replicas agree.
 * Names: lowercase letters, digits and dashes.
 */
export interface SecretStore {
  readonly kind: "file" | "postgres";
  getOrCreate<T>(name: string, create: () => T | Promise<T>): Promise<T>;
  get<T>(name: string): Promise<T | undefined>;
  update<T>(name: string, change: (current: T | undefined) => T | Promise<T>): Promise<T>;
  /**
   * Calls `onChange` soon after another process replaces `name` (file store only: the database's replicas hear of
   * changes through the bus). Returns the function that stops watching.
   */
  watch?(name: string, onChange: () => void): () => void;
}

export const SECRET_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

export function checkSecretName(name: string): void {
  if (!SECRET_NAME.test(name)) throw new Error(`Invalid secret name: ${JSON.stringify(name)}`);
}
