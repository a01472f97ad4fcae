import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalFileStorage } from "./local-file-storage.ts";
import { storageContract } from "./storage-contract.ts";

storageContract("local disk", async () => {
  const root = mkdtempSync(join(tmpdir(), "hikaya-files-"));
  return { storage: new LocalFileStorage(root), close: async () => rmSync(root, { recursive: true, force: true }) };
});
