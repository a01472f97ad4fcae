// `npm run keys:rotate`: a new signing key signs from now on; the previous two stay published in the JWKS,
// so tokens they signed stay valid until they expire. Running servers pick the new key up within a minute.
// `npm run keys:service-role`: prints the service-role key for server-to-server admin calls.
// Both use the running configuration (DATABASE_URL, DATA_DIR): the keys live where the server keeps them.
import { ConfigError, loadConfig } from "../config.ts";
import { migrateToLatest, openDatabase } from "../db/database.ts";
import { createSecretStore } from "../infrastructure/secrets/index.ts";
import { loadSigningKeys, rotateSigningKeys } from "../modules/auth/signing-keys.ts";

async function main(command: string | undefined): Promise<void> {
  if (command !== "rotate" && command !== "service-role") {
    throw new ConfigError("Usage: keys.ts rotate | service-role");
  }
  const config = loadConfig();
  const database = openDatabase(config.database);
  try {
    await migrateToLatest(database);
    const secrets = createSecretStore(config, database);
    if (command === "rotate") {
      await loadSigningKeys(secrets).then((keys) => keys.close()); // creates the first key if there is none
      const kid = await rotateSigningKeys(secrets);
      console.log(`New signing key ${kid}: it signs new tokens; tokens signed by the previous key stay valid until they expire.`);
      console.log(
        "Running servers switch to it within a minute. The anon and service-role keys change too (print: npm run keys:service-role).",
      );
    } else {
      const keys = await loadSigningKeys(secrets);
      keys.close();
      console.log(keys.serviceRoleKey);
    }
  } finally {
    await database.close();
  }
}

main(process.argv[2]).catch((error) => {
  console.error(error instanceof ConfigError ? error.message : `keys: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
