import type { Kysely } from "kysely";
import type { DialectName } from "../dialect.ts";
import * as m0001 from "./0001-program.ts";

export interface HikayaMigration {
  up(db: Kysely<unknown>, dialect: DialectName): Promise<void>;
}

/**
 * Every migration, in order. Names are frozen once released. Each feature adds its own file and one
 * line here; a migration receives the dialect for the few types that differ (see dialect.ts).
 */
export const MIGRATIONS: Record<string, HikayaMigration> = {
  "0001-program": m0001,
};
