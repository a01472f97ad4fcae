import type { Config } from "../../config.ts";
import type { FileStorage } from "./file-storage.ts";
import { LocalFileStorage } from "./local-file-storage.ts";
import { S3FileStorage } from "./s3-file-storage.ts";

export * from "./file-storage.ts";

export function createFileStorage(config: Config["storage"]): FileStorage {
  return config.driver === "s3" ? new S3FileStorage(config) : new LocalFileStorage(config.root);
}
