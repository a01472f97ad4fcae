import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * A real S3-API server (s3rver, from the npm registry) in a child process on a free local port, with one
 * bucket, for the storage suite, the replica test and the migration test. Its files live in a temporary
 * folder. Known quirk of s3rver (not of S3): a Range of `bytes=0-0` answers the whole object.
 */
export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** The environment a server needs to keep its files there. */
  env: Record<string, string>;
  close(): Promise<void>;
}

const MAIN = fileURLToPath(new URL("./s3-server-main.ts", import.meta.url));

export async function startTestS3(bucket = "hikaya-test"): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), "hikaya-s3-"));
  const child = spawn(process.execPath, [MAIN, directory, bucket], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split("\n")[0];
      if (out.includes("\n") && line) resolve(Number(line));
    });
    child.once("exit", (code) => reject(new Error(`s3rver exited with ${code}`)));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: {
      STORAGE_DRIVER: "s3",
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: "us-east-1",
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
      S3_FORCE_PATH_STYLE: "true",
    },
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
