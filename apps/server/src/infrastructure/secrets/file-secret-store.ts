import { randomUUID } from "node:crypto";
import { watch } from "node:fs";
import { link, mkdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { checkSecretName, type SecretStore } from "./secret-store.ts";

/** One JSON file per secret under `<dataDir>/keys`; the SQLite setup's store (one machine owns DATA_DIR). */
export class FileSecretStore implements SecretStore {
  readonly kind = "file";
  readonly #dir: string;

  constructor(dataDir: string) {
    this.#dir = join(dataDir, "keys");
  }

  async get<T>(name: string): Promise<T | undefined> {
    checkSecretName(name);
    const file = this.#file(name);
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new Error(`Cannot read ${file}: ${String(error)}`);
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new Error(`Cannot read ${file}: not valid JSON`);
    }
  }

  async getOrCreate<T>(name: string, create: () => T | Promise<T>): Promise<T> {
    const existing = await this.get<T>(name);
    if (existing !== undefined) return existing;
    const temp = await this.#writeTemp(await create());
    try {
      // link() fails when the file exists: of two processes creating at once, the first one's value stays.
      await link(temp, this.#file(name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      await unlink(temp);
    }
    return (await this.get<T>(name)) as T;
  }

  async update<T>(name: string, change: (current: T | undefined) => T | Promise<T>): Promise<T> {
    const next = await change(await this.get<T>(name));
    await rename(await this.#writeTemp(next), this.#file(name));
    return next;
  }

  /**
   * A replacement is a rename into the directory, so the directory is watched (the file's old inode is gone). The
   * watch does not keep the process alive.
   */
  watch(name: string, onChange: () => void): () => void {
    checkSecretName(name);
    const watcher = watch(this.#dir, { persistent: false }, (_event, file) => {
      if (file === null || file === `${name}.json`) onChange();
    });
    // A watch that fails later (the directory removed) only loses the early signal: the periodic re-read remains.
    watcher.on("error", () => watcher.close());
    return () => watcher.close();
  }

  #file(name: string): string {
    return join(this.#dir, `${name}.json`);
  }

  async #writeTemp(value: unknown): Promise<string> {
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
    const temp = join(this.#dir, `.${randomUUID()}.tmp`);
    await writeFile(temp, JSON.stringify(value, null, 2), { mode: 0o600, flag: "wx" });
    return temp;
  }
}
