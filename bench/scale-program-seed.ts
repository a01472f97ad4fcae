/**
 * Fills a freshly migrated PostgreSQL database with a program of `families` families for `scale-program.ts`, inside
 * PostgreSQL (`insert … select … from generate_series`): per family one account (all sharing one precomputed password
 * hash), a profile, a live session and its refresh token, 10 messages (one conversation), 3 watched stories, and for
 * every other family one recording. At 100,000 families: 1,000,000 messages, 300,000 progress rows, 50,000
 * recordings. Each table's secondary indexes are dropped for the load and rebuilt from their own definitions after
 * it (a GIN trigram index rebuilt once is minutes faster than one maintained row by row), then VACUUM ANALYZE, as
 * autovacuum would leave a program that has run for a while.
 */
import { createHash } from "node:crypto";
import pg from "pg";

export const MESSAGES_PER_FAMILY = 10;
/** Sign-in's scrypt cost in the bench: the lowest the config allows (the default 17 costs ~200 ms a check). */
export const SCRYPT_LOG_N = 10;

/** The app's environment on a bench database (its own DATA_DIR comes from lib.ts or the spawner). */
export const appEnv = (url: string) => ({
  DATABASE_URL: url,
  STORAGE_DRIVER: "local",
  AUTH_SCRYPT_LOG_N: String(SCRYPT_LOG_N),
  AUTH_RATE_LIMIT_FACTOR: "1000000",
});
export const WATCHED_PER_FAMILY = 3;

const TABLES = ["users", "profiles", "sessions", "refresh_tokens", "messages", "conversations", "progress", "recordings"];

const FIRST_NAMES = ["Layla", "Omar", "Nour", "Yusuf", "Mariam", "Khalid", "Huda", "Sami", "Rana", "Tariq"];
const SYLLABLES = ["ba", "da", "ka", "li", "mo", "nu", "ra", "si", "to", "za"];
const BODIES = [
  "We watched the story about the olive tree together",
  "My daughter asked what happens next, she loved the song",
  "Thank you, the recording worked this time",
  "Can we watch the next story tomorrow evening?",
  "Her grandmother told us about the old house in the village",
  "The video stopped twice on my phone yesterday",
  "We recorded our answer to the question about friendship",
  "He laughed at the part with the donkey and the market",
];

/** The seeded family `g` (1-based): what a probe needs to sign in, list and search. */
export function familyOf(g: number) {
  const digits = String(g).padStart(6, "0");
  const surname = [...digits].map((d) => SYLLABLES[Number(d)]).join("");
  return {
    id: uuidOf(`family-${g}`),
    sessionId: uuidOf(`session-${g}`),
    email: `family${g}@bench.hikaya`,
    phone: `+962${791_000_000 + g}`,
    name: `${FIRST_NAMES[g % FIRST_NAMES.length]} ${surname[0]?.toUpperCase()}${surname.slice(1)}`,
  };
}

// md5(text)::uuid in PostgreSQL, computed the same way here.
function uuidOf(text: string) {
  const h = createHash("md5").update(text).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const sqlArray = (xs: string[]) => `array[${xs.map((x) => `'${x.replace(/'/g, "''")}'`).join(", ")}]`;
const iso = (ts: string) => `to_char((${ts}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export async function seedProgram(url: string, families: number, passwordHash: string, operatorId: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const q = (text: string, values: unknown[] = []) => client.query(text, values);
  try {
    await q("set synchronous_commit = off");
    await q("set maintenance_work_mem = '256MB'");
    const indexes = (
      await q(
        `select indexname, indexdef from pg_indexes where schemaname = 'public' and tablename = any($1)
         and indexname not in (select conname from pg_constraint)`,
        [TABLES],
      )
    ).rows as { indexname: string; indexdef: string }[];
    for (const i of indexes) await q(`drop index ${i.indexname}`);

    const now = `'${new Date().toISOString()}'::timestamptz`;
    const name = `(${sqlArray(FIRST_NAMES)})[g % ${FIRST_NAMES.length} + 1] || ' ' || initcap((select string_agg(
        (${sqlArray(SYLLABLES)})[substr(lpad(g::text, 6, '0'), i, 1)::int + 1], '' order by i) from generate_series(1, 6) i))`;
    // Families joined over the last `families` minutes, oldest first.
    const joined = iso(`${now} - make_interval(mins => $1 - g + 1)`);
    await q(
      `insert into users (id, email, phone, encrypted_password, role, app_metadata, user_metadata, email_confirmed_at,
         last_sign_in_at, is_anonymous, created_at, updated_at)
       select md5('family-' || g)::uuid::text, 'family' || g || '@bench.hikaya', '+962' || (791000000 + g), $2,
         'authenticated', '{"provider":"email","providers":["email"]}', '{}', t, t, 0, t, t
       from (select g, ${joined} as t from generate_series(1, $1::int) g) s`,
      [families, passwordHash],
    );
    await q(
      `insert into profiles (user_id, name, phone_number, country_code, from_landing_page, agree_to_reminder,
         language, created_at, updated_at)
       select md5('family-' || g)::uuid::text, ${name}, (791000000 + g)::text, '+962', 0, 1,
         case when g % 3 = 0 then 'en' else 'ar' end, t, t
       from (select g, ${joined} as t from generate_series(1, $1::int) g) s`,
      [families],
    );
    await q(
      `insert into sessions (id, user_id, aal, amr, user_agent, ip, created_at, updated_at)
       select md5('session-' || g)::uuid::text, md5('family-' || g)::uuid::text, 'aal1',
         '[{"method":"password","timestamp":' || extract(epoch from ${now})::bigint || '}]', 'bench', '127.0.0.1', t, t
       from (select g, ${joined} as t from generate_series(1, $1::int) g) s`,
      [families],
    );
    await q(
      `insert into refresh_tokens (token_hash, session_id, user_id, parent_id, revoked, created_at)
       select encode(sha256(('refresh-' || g)::bytea), 'hex'), md5('session-' || g)::uuid::text,
         md5('family-' || g)::uuid::text, null, 0, t
       from (select g, ${joined} as t from generate_series(1, $1::int) g) s`,
      [families],
    );
    // Messages round-robin over the families, so each conversation's ids spread over the whole table as in a
    // running program; even-numbered ones are the family's, odd ones the facilitator's answers.
    await q(
      `insert into messages (user_id, sender_id, sender_role, message_type, body, created_at)
       select md5('family-' || f)::uuid::text,
         case when k % 2 = 0 then md5('family-' || f)::uuid::text else $3 end,
         case when k % 2 = 0 then 'user' else 'facilitator' end, 'text',
         (${sqlArray(BODIES)})[m % ${BODIES.length} + 1], ${iso(`${now} - make_interval(secs => $1::int * $2::int - m)`)}
       from (select m, (m - 1) % $1::int + 1 as f, (m - 1) / $1::int as k from generate_series(1, $1::int * $2::int) m) s`,
      [families, MESSAGES_PER_FAMILY, operatorId],
    );
    // Seven in ten conversations read by the team up to their newest message; one in ten assigned to the operator.
    await q(
      `insert into conversations (user_id, last_message_id, last_message_at, user_read_id, facilitator_read_id,
         last_user_message_id, assigned_to, assigned_at)
       select user_id, max(id), max(created_at), max(id),
         case when abs(hashtext(user_id)) % 10 < 7 then max(id) else 0 end,
         coalesce(max(id) filter (where sender_role = 'user'), 0),
         case when abs(hashtext(user_id)) % 10 = 0 then $1 end,
         case when abs(hashtext(user_id)) % 10 = 0 then max(created_at) end
       from messages group by user_id`,
      [operatorId],
    );
    await q(
      `insert into progress (user_id, story_id, story_position, watched_at)
       select md5('family-' || g)::uuid::text, s.id, s.position, ${iso(now)}
       from generate_series(1, $1::int) g
       join (select id, position from stories order by position limit $2) s on true`,
      [families, WATCHED_PER_FAMILY],
    );
    await q(
      `insert into recordings (id, user_id, story_id, question_index, object_key, content_type, size, duration_seconds,
         created_at)
       select md5('recording-' || g)::uuid::text, md5('family-' || g)::uuid::text,
         (select id from stories order by position limit 1), 0,
         md5('family-' || g)::uuid::text || '/' || md5('recording-' || g)::uuid::text || '.webm', 'audio/webm',
         120000, 30, ${iso(now)}
       from generate_series(2, $1::int, 2) g`,
      [families],
    );
    for (const i of indexes) await q(i.indexdef);
    for (const t of TABLES) await q(`vacuum analyze ${t}`);
    const counts = (
      await q(`select (select count(*) from users) as users, (select count(*) from messages) as messages,
        (select count(*) from progress) as progress, (select count(*) from recordings) as recordings`)
    ).rows[0] as Record<string, string>;
    return Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, Number(v)]));
  } finally {
    await client.end();
  }
}
