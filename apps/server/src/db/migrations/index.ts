import type { Kysely } from "kysely";
import type { DialectName } from "../dialect.ts";
import * as m0001 from "./0001-program.ts";
import * as m0002 from "./0002-auth.ts";
import * as m0003 from "./0003-recordings.ts";
import * as m0004 from "./0004-messages.ts";
import * as m0005 from "./0005-admin.ts";
import * as m0006 from "./0006-accounts.ts";
import * as m0008 from "./0008-secrets.ts";
import * as m0011 from "./0011-reminders.ts";
import * as m0012 from "./0012-versions.ts";
import * as m0013 from "./0013-inbox.ts";
import * as m0014 from "./0014-drafts.ts";
import * as m0015 from "./0015-console-lists.ts";
import * as m0017 from "./0017-bilingual-media.ts";
import * as m0018 from "./0018-inbound-messages.ts";
import * as m0019 from "./0019-contact-idempotency.ts";
import * as m0021 from "./0021-time-zones.ts";
import * as m0022 from "./0022-keepsake.ts";
import * as m0023 from "./0023-media-jobs.ts";
import * as m0024 from "./0024-video-origins.ts";
import * as m0025 from "./0025-team-inbox.ts";
import * as m0026 from "./0026-thin-connections.ts";
import * as m0027 from "./0027-whatsapp.ts";
import * as m0028 from "./0028-family-messages.ts";
import * as m0029 from "./0029-operator-push.ts";
import * as m0030 from "./0030-transcripts.ts";
import * as m0031 from "./0031-inbox-counts.ts";
import * as m0032 from "./0032-message-order.ts";
import * as m0033 from "./0033-voice-words.ts";

export interface HikayaMigration {
  up(db: Kysely<unknown>, dialect: DialectName): Promise<void>;
}

/**
 * Every migration, in order. Names are frozen once released. Each feature adds its own file and one
 * line here; a migration receives the dialect for the few types that differ (see dialect.ts).
 */
export const MIGRATIONS: Record<string, HikayaMigration> = {
  "0001-program": m0001,
  "0002-auth": m0002,
  "0003-recordings": m0003,
  "0004-messages": m0004,
  "0005-admin": m0005,
  "0006-accounts": m0006,
  "0008-secrets": m0008,
  "0011-reminders": m0011,
  "0012-versions": m0012,
  "0013-inbox": m0013,
  "0014-drafts": m0014,
  "0015-console-lists": m0015,
  "0017-bilingual-media": m0017,
  "0018-inbound-messages": m0018,
  "0019-contact-idempotency": m0019,
  "0021-time-zones": m0021,
  "0022-keepsake": m0022,
  "0023-media-jobs": m0023,
  "0024-video-origins": m0024,
  "0025-team-inbox": m0025,
  "0026-thin-connections": m0026,
  "0027-whatsapp": m0027,
  "0028-family-messages": m0028,
  "0029-operator-push": m0029,
  "0030-transcripts": m0030,
  "0031-inbox-counts": m0031,
  "0032-message-order": m0032,
  "0033-voice-words": m0033,
};
