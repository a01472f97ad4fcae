import type { Config } from "../../config.ts";
import type { FileStorage } from "./file-storage.ts";
import { LocalFileStorage } from "./local-file-storage.ts";

export * from "./file-storage.ts";

/** The S3 driver (and the AWS SDK, about a tenth of start-up) loads only when configured. */
export async function createFileStorage(config: Config["storage"]): Promise<FileStorage> {
  if (config.driver !== "s3") return new LocalFileStorage(config.root);
  const { S3FileStorage } = await import("./s3-file-storage.ts");
  return new S3FileStorage(config);
}
