// `npm run keys:rotate`: a new signing key signs from now on; the previous two stay published in the JWKS,
// so tokens they signed stay valid until they expire; the one before them is dropped and refused at once by every
// running server (told through the bus on PostgreSQL, by the keys file itself with DATA_DIR), cached or not.
// `npm run keys:service-role`: prints the service-role key for server-to-server admin calls.
// `npm run keys:service-role -- revoke`: revokes that key alone (a new service-role id; the signing keys and everyone's
// tokens stay), every running server refuses the old key at once, and prints the new one.
// `npm run keys:media-cookies`: prints the key story media cookies are signed with (base64url), for a CDN's edge to
// check them (docs/scale.md, "A CDN in front"); it signs nothing else, and changes with `keys:rotate`.
// All use the running configuration (DATABASE_URL, DATA_DIR): the keys live where the server keeps them.
import { type Config, ConfigError, loadConfig } from "../config.ts";
import { migrateToLatest, openDatabase, SQLITE_BUSY_TIMEOUT_MS } from "../db/database.ts";
import { createSecretStore } from "../infrastructure/secrets/index.ts";
import { loadSigningKeys, revokeServiceRoleKey, rotateSigningKeys, SIGNING_KEYS_CHANNEL } from "../modules/auth/signing-keys.ts";

/**
 * Every server announces itself on the bus at least once a second (and at once when a process connects): after
 * this long the command knows every running replica, so its confirmed signal waits for each of them.
 */
const PEERS_HEARD_MS = 1500;

/** Tells every running replica (PostgreSQL) to read the keys again; returns once each has taken it in. */
async function announceKeysChange(config: Config, id: string): Promise<void> {
  if (config.database.kind !== "postgres") return; // the servers watch DATA_DIR/keys themselves
  const { PostgresBus } = await import("../infrastructure/bus/postgres-bus.ts");
  const bus = new PostgresBus(config.database.url, config.database.listenUrl);
  try {
    // Subscribing connects (and asks the others to announce themselves); this process hears its own signal too.
    await bus.subscribe(SIGNING_KEYS_CHANNEL, () => undefined);
    await new Promise((resolve) => setTimeout(resolve, PEERS_HEARD_MS));
    await bus.publish(SIGNING_KEYS_CHANNEL, id, { confirm: true });
  } finally {
    await bus.close();
  }
}

async function main(command: string | undefined, option: string | undefined): Promise<void> {
  const usage = "Usage: keys.ts rotate | service-role [revoke] | media-cookies";
  if (command !== "rotate" && command !== "service-role" && command !== "media-cookies") throw new ConfigError(usage);
  if (option !== undefined && !(command === "service-role" && option === "revoke")) throw new ConfigError(usage);
  const config = loadConfig();
  const database = openDatabase(config.database, { busyTimeoutMs: SQLITE_BUSY_TIMEOUT_MS.command });
  try {
    await migrateToLatest(database);
    const secrets = createSecretStore(config, database);
    if (command === "rotate") {
      await loadSigningKeys(secrets).then((keys) => keys.close()); // creates the first key if there is none
      const kid = await rotateSigningKeys(secrets);
      await announceKeysChange(config, kid);
      console.log(
        `New signing key ${kid}: it signs new tokens; tokens signed by the previous two keys stay valid until they expire.`,
      );
      console.log(
        "Running servers have switched to it, and refuse tokens of the key it dropped. The anon and service-role keys change too (print: npm run keys:service-role).",
      );
    } else if (command === "media-cookies") {
      // Imported here: the other commands need none of the contracts package it brings.
      const { purposeKey } = await import("../modules/storage/signed-links.ts");
      const keys = await loadSigningKeys(secrets);
      keys.close();
      console.log(purposeKey(keys.hmacSecret, "media-cookies").toString("base64url"));
    } else {
      if (option === "revoke") {
        await loadSigningKeys(secrets).then((keys) => keys.close()); // creates the keys if there are none
        await announceKeysChange(config, await revokeServiceRoleKey(secrets));
        console.error("The previous service-role key is refused by every running server from now on. The new one:");
      }
      const keys = await loadSigningKeys(secrets);
      keys.close();
      console.log(keys.serviceRoleKey);
    }
  } finally {
    await database.close();
  }
}

main(process.argv[2], process.argv[3]).catch((error) => {
  console.error(error instanceof ConfigError ? error.message : `keys: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
