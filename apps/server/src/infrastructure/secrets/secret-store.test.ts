import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, migrateToLatest, openDatabase } from "../../db/database.ts";
import { createTestDatabaseUrl, testDialect } from "../../test/test-app.ts";
import { FileSecretStore } from "./file-secret-store.ts";
import { PostgresSecretStore } from "./postgres-secret-store.ts";
import type { SecretStore } from "./secret-store.ts";

/** The same behaviour from both drivers; `twin` is a second store over the same place (another replica). */
function storeContract(name: string, open: () => Promise<{ store: SecretStore; twin: SecretStore; close(): Promise<void> }>) {
  describe(name, () => {
    let s: Awaited<ReturnType<typeof open>>;
    beforeAll(async () => {
      s = await open();
    });
    afterAll(async () => s?.close());

    it("creates a secret once and returns the stored value afterwards", async () => {
      let calls = 0;
      const first = await s.store.getOrCreate("alpha", () => ({ n: ++calls }));
      const again = await s.store.getOrCreate("alpha", () => ({ n: ++calls }));
      expect(first).toEqual({ n: 1 });
      expect(again).toEqual({ n: 1 });
      expect(calls).toBe(1);
      expect(await s.twin.get("alpha")).toEqual({ n: 1 });
      expect(await s.store.get("absent")).toBeUndefined();
    });

    it("gives every concurrent caller, in two stores over one place, the one value stored first", async () => {
      const values = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 ? s.store : s.twin).getOrCreate("race", async () => `value-${i}`)),
      );
      expect(new Set(values).size).toBe(1);
      expect(await s.store.get("race")).toBe(values[0]);
    });

    it("updates a value for every reader", async () => {
      await s.store.getOrCreate("ring", () => ["a"]);
      const next = await s.twin.update<string[]>("ring", (current) => ["b", ...(current ?? [])]);
      expect(next).toEqual(["b", "a"]);
      expect(await s.store.get("ring")).toEqual(["b", "a"]);
      expect(await s.store.update<string[]>("fresh", (current) => current ?? ["new"])).toEqual(["new"]);
    });

    it("refuses names that are not plain identifiers", async () => {
      await expect(s.store.getOrCreate("../escape", () => 1)).rejects.toThrow(/Invalid secret name/);
      await expect(s.store.get("Bad Name")).rejects.toThrow(/Invalid secret name/);
    });
  });
}

storeContract("file secret store (DATA_DIR/keys)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "hikaya-secrets-"));
  return {
    store: new FileSecretStore(dir),
    twin: new FileSecretStore(dir),
    close: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

describe("file secret store on disk", () => {
  it("keeps each secret in DATA_DIR/keys/<name>.json, readable by its owner only", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hikaya-secrets-"));
    try {
      await new FileSecretStore(dir).getOrCreate("signing-keys", () => [{ kid: "k" }]);
      const file = join(dir, "keys", "signing-keys.json");
      expect(JSON.parse(readFileSync(file, "utf8"))).toEqual([{ kid: "k" }]);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

if (testDialect() === "postgres") {
  storeContract("PostgreSQL secret store (secrets table)", async () => {
    const target = await createTestDatabaseUrl();
    if (!target) throw new Error("no database");
    const a: DatabaseHandle = openDatabase({ kind: "postgres", url: target.url });
    const b: DatabaseHandle = openDatabase({ kind: "postgres", url: target.url });
    await migrateToLatest(a);
    return {
      store: new PostgresSecretStore(a.db),
      twin: new PostgresSecretStore(b.db),
      async close() {
        await a.close();
        await b.close();
        await target.drop();
      },
    };
  });
}
