import { execFileSync } from "node:child_process";
import { createDecipheriv, createECDH, hkdfSync, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PushOptions } from "./push-delivery.ts";

/**
 * A local push service: an HTTPS endpoint (self-signed, its certificate and its loopback address allowed through the
 * options the sender is given, as production allows neither) that checks the VAPID header and decrypts each message
 * with the subscription's own keys (RFC 8291, aes128gcm), as a browser's push service and service worker would.
 */
export interface ReceivedPush {
  path: string;
  authorization: string;
  payload: Record<string, unknown>;
}

export interface LocalPushService {
  /** `https://127.0.0.1:<port>` */
  base: string;
  cert: Buffer;
  /** What a send may reach: this service, nothing else on this machine. */
  options: PushOptions;
  /** Every push received, in order. */
  received: ReceivedPush[];
  /** Paths the service answers 410 (gone) for. */
  gone: Set<string>;
  /** A browser's subscription at `path` (its keys kept here to decrypt what arrives). */
  subscription(path: string): { endpoint: string; keys: { p256dh: string; auth: string } };
  /** The next push to arrive (rejects after 5 s). */
  nextPush(): Promise<ReceivedPush>;
  close(): Promise<void>;
}

function decrypt(body: Buffer, ecdh: ReturnType<typeof createECDH>, authSecret: Buffer): string {
  const salt = body.subarray(0, 16);
  const idLength = body.readUInt8(20);
  const senderPublic = body.subarray(21, 21 + idLength);
  const ciphertext = body.subarray(21 + idLength);
  const shared = ecdh.computeSecret(senderPublic);
  const keyInfo = Buffer.concat([Buffer.from("WebPush: info\0"), ecdh.getPublicKey(), senderPublic]);
  const ikm = Buffer.from(hkdfSync("sha256", shared, authSecret, keyInfo, 32));
  const cek = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: aes128gcm\0"), 16));
  const nonce = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: nonce\0"), 12));
  const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  const end = padded.lastIndexOf(2); // the last record's delimiter, then zero padding
  return padded.subarray(0, end).toString("utf8");
}

export async function startLocalPushService(): Promise<LocalPushService> {
  const certDir = mkdtempSync(join(tmpdir(), "hikaya-push-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1,DNS:push.invalid",
      "-keyout",
      join(certDir, "key.pem"),
      "-out",
      join(certDir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  const cert = readFileSync(join(certDir, "cert.pem"));
  const received: ReceivedPush[] = [];
  const waiting: ((r: ReceivedPush) => void)[] = [];
  const gone = new Set<string>();
  const keysByPath = new Map<string, { ecdh: ReturnType<typeof createECDH>; auth: Buffer }>();
  const server = https.createServer({ key: readFileSync(join(certDir, "key.pem")), cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "";
      if (gone.has(path)) {
        res.writeHead(410).end();
        return;
      }
      const keys = keysByPath.get(path);
      if (!keys || req.headers["content-encoding"] !== "aes128gcm") {
        res.writeHead(400).end();
        return;
      }
      const r = {
        path,
        authorization: String(req.headers.authorization ?? ""),
        payload: JSON.parse(decrypt(Buffer.concat(chunks), keys.ecdh, keys.auth)),
      };
      received.push(r);
      waiting.shift()?.(r);
      res.writeHead(201).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    cert,
    options: { ca: cert, addressAllowed: (address) => address === "127.0.0.1" },
    received,
    gone,
    subscription(path) {
      const ecdh = createECDH("prime256v1");
      ecdh.generateKeys();
      const auth = randomBytes(16);
      keysByPath.set(path, { ecdh, auth });
      return {
        endpoint: `${base}${path}`,
        keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: auth.toString("base64url") },
      };
    },
    nextPush: () =>
      new Promise<ReceivedPush>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no push arrived")), 5000);
        waiting.push((r) => {
          clearTimeout(timer);
          resolve(r);
        });
      }),
    async close() {
      await new Promise((resolve) => server.close(resolve));
      rmSync(certDir, { recursive: true, force: true });
    },
  };
}
