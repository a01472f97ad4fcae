import { randomBytes } from "node:crypto";
import pg from "pg";
import { CHANNEL_NAME, CONFIRM_TIMEOUT_MS, type MessageBus } from "./bus.ts";
import { COALESCE_MS, SignalCoalescer } from "./coalescer.ts";

/**
 * Presence and acknowledgements travel here: `hb <process> <channel,…>`, `ack <nonce> <process>`, and `who`
 * (sent by a process that just connected, so the others announce themselves at once instead of within a second).
 */
const CONTROL_CHANNEL = "hikaya_bus_control";
/** Marks a payload that wants acknowledgements: `\u001e<nonce>\u001e<payload>`. */
const CONFIRM_MARK = "\u001e";
const HEARTBEAT_MS = 1000;
/** A process not heard from for this long is gone: nobody waits for its acknowledgement. */
const PEER_TIMEOUT_MS = 3500;

interface Peer {
  seen: number;
  channels: Set<string>;
}

interface PendingConfirm {
  waiting: Set<string>;
  finish: () => void;
}

interface Subscription {
  listener: (payload: string) => void;
  onGap?: () => void;
}

/**
 * LISTEN/NOTIFY on a dedicated connection (a pooled one could be handed to someone else between
 * LISTEN and the notification), to `listenUrl`: a direct connection to PostgreSQL, since a pooler in transaction
 * mode (PgBouncer) hands the session to other clients between transactions and LISTEN would hear nothing. If that connection drops it reconnects with backoff, listens again and
 * tells subscribers there may be a gap, so they re-read from the database. Publishing goes through
 * short-lived pool queries (`pg_notify`), so a publisher never waits on the listener's reconnects. Unconfirmed
 * signals with the same channel and payload are folded within `COALESCE_MS` (coalescer.ts): each NOTIFY's commit takes
 * a lock for the whole database. Confirmed ones each go out, since each waits for its own acknowledgements.
 */
export class PostgresBus implements MessageBus {
  readonly kind = "postgres" as const;
  readonly #listenUrl: string;
  readonly #pool: pg.Pool;
  readonly #subs = new Map<string, Set<Subscription>>();
  #client: pg.Client | null = null;
  #connecting: Promise<pg.Client> | null = null;
  #closed = false;
  #retryMs = 200;
  #retryTimer: NodeJS.Timeout | null = null;
  readonly #id = randomBytes(6).toString("hex");
  #seq = 0;
  readonly #peers = new Map<string, Peer>();
  readonly #pending = new Map<string, PendingConfirm>();
  #heartbeat: NodeJS.Timeout | null = null;
  readonly #coalescer: SignalCoalescer;

  /**
   * `url` for publishing (short transactions, fine through a pooler); `listenUrl` for the LISTEN session;
   * `coalesceMs` 0 sends every signal (the scale bench's design before issue 41).
   */
  constructor(url: string, listenUrl = url, coalesceMs = COALESCE_MS) {
    this.#listenUrl = listenUrl;
    this.#pool = new pg.Pool({ connectionString: url, max: 2 });
    this.#pool.on("error", () => undefined);
    this.#coalescer = new SignalCoalescer((channel, payload) => this.#notify(channel, payload), coalesceMs);
  }

  /** Signals not sent because a neighbour within the window said the same (coalescer.ts). */
  get folded(): number {
    return this.#coalescer.folded;
  }

  get live(): boolean {
    const self = this.#peers.get(this.#id);
    return this.#client !== null && self !== undefined && Date.now() - self.seen < PEER_TIMEOUT_MS;
  }

  /**
   * How many processes a confirmed publish on `channel` would wait for now: those heard announcing it lately. A
   * process learns its peers from their announcements, which arrive a moment after it connects.
   */
  listeners(channel: string): number {
    return this.#listening(channel).size;
  }

  /** The processes heard announcing `channel` lately: those a confirmed publish waits for. */
  #listening(channel: string): Set<string> {
    const now = Date.now();
    const ids = new Set<string>();
    for (const [id, peer] of this.#peers) if (now - peer.seen < PEER_TIMEOUT_MS && peer.channels.has(channel)) ids.add(id);
    return ids;
  }

  async publish(channel: string, payload: string, options?: { confirm?: boolean }) {
    if (!CHANNEL_NAME.test(channel)) throw new Error(`invalid channel name ${channel}`);
    if (!options?.confirm) {
      await this.#coalescer.publish(channel, payload);
      return;
    }
    await this.#connect();
    const nonce = `${this.#id}.${++this.#seq}`;
    const waiting = this.#listening(channel);
    const confirmed = new Promise<void>((resolve) => {
      const timer = setTimeout(() => finish(), CONFIRM_TIMEOUT_MS);
      const finish = () => {
        clearTimeout(timer);
        this.#pending.delete(nonce);
        resolve();
      };
      this.#pending.set(nonce, { waiting, finish });
    });
    if (waiting.size === 0) this.#pending.get(nonce)?.finish();
    await this.#notify(channel, `${CONFIRM_MARK}${nonce}${CONFIRM_MARK}${payload}`);
    await confirmed;
  }

  async #notify(channel: string, payload: string) {
    await this.#pool.query("select pg_notify($1, $2)", [channel, payload]);
  }

  #deliver(channel: string, raw: string) {
    if (channel === CONTROL_CHANNEL) {
      this.#control(raw);
      return;
    }
    let payload = raw;
    let nonce: string | null = null;
    if (raw.startsWith(CONFIRM_MARK)) {
      const end = raw.indexOf(CONFIRM_MARK, 1);
      nonce = raw.slice(1, end);
      payload = raw.slice(end + 1);
    }
    for (const sub of this.#subs.get(channel) ?? []) sub.listener(payload);
    if (nonce) void this.#notify(CONTROL_CHANNEL, `ack ${nonce} ${this.#id}`).catch(() => undefined);
  }

  #control(message: string) {
    const [kind, a = "", b = ""] = message.split(" ");
    if (kind === "hb") {
      this.#peers.set(a, { seen: Date.now(), channels: new Set(b ? b.split(",") : []) });
    } else if (kind === "who") {
      this.#beat();
    } else if (kind === "ack") {
      const pending = this.#pending.get(a);
      pending?.waiting.delete(b);
      if (pending?.waiting.size === 0) pending.finish();
    }
  }

  /** Announces this process and its channels; forgets peers gone silent and stops waiting for them. */
  #beat() {
    const now = Date.now();
    for (const [id, peer] of this.#peers) {
      if (now - peer.seen < PEER_TIMEOUT_MS) continue;
      this.#peers.delete(id);
      for (const pending of this.#pending.values()) {
        pending.waiting.delete(id);
        if (pending.waiting.size === 0) pending.finish();
      }
    }
    if (!this.#client) return;
    const channels = [...this.#subs.keys()].join(",");
    void this.#notify(CONTROL_CHANNEL, `hb ${this.#id} ${channels}`).catch(() => undefined);
  }

  async subscribe(channel: string, listener: (payload: string) => void, onGap?: () => void) {
    if (!CHANNEL_NAME.test(channel)) throw new Error(`invalid channel name ${channel}`);
    const sub: Subscription = { listener, onGap };
    let set = this.#subs.get(channel);
    const first = !set;
    if (!set) {
      set = new Set();
      this.#subs.set(channel, set);
    }
    set.add(sub);
    const client = await this.#connect();
    if (first) {
      await client.query(`listen ${channel}`);
      this.#beat();
    }
    return async () => {
      set.delete(sub);
      if (set.size === 0 && this.#subs.get(channel) === set) {
        this.#subs.delete(channel);
        await this.#client?.query(`unlisten ${channel}`).catch(() => undefined);
        this.#beat();
      }
    };
  }

  #connect(): Promise<pg.Client> {
    if (this.#client) return Promise.resolve(this.#client);
    this.#connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.#listenUrl });
      client.on("notification", (n) => this.#deliver(n.channel, n.payload ?? ""));
      client.on("error", () => this.#lost(client));
      client.on("end", () => this.#lost(client));
      try {
        await client.connect();
        await client.query(`listen ${CONTROL_CHANNEL}`);
        for (const channel of this.#subs.keys()) await client.query(`listen ${channel}`);
      } catch (error) {
        client.removeAllListeners();
        await client.end().catch(() => undefined);
        throw error;
      } finally {
        this.#connecting = null;
      }
      this.#client = client;
      this.#retryMs = 200;
      this.#heartbeat ??= setInterval(() => this.#beat(), HEARTBEAT_MS).unref();
      this.#beat();
      void this.#notify(CONTROL_CHANNEL, "who").catch(() => undefined);
      return client;
    })();
    return this.#connecting;
  }

  #lost(client: pg.Client) {
    if (this.#client !== client) return;
    this.#client = null;
    client.removeAllListeners();
    client.on("error", () => undefined);
    void client.end().catch(() => undefined);
    this.#scheduleReconnect();
  }

  #scheduleReconnect() {
    if (this.#closed || this.#retryTimer) return;
    this.#retryTimer = setTimeout(async () => {
      this.#retryTimer = null;
      try {
        await this.#connect();
        for (const set of this.#subs.values()) for (const sub of set) sub.onGap?.();
      } catch {
        this.#retryMs = Math.min(this.#retryMs * 2, 5000);
        this.#scheduleReconnect();
      }
    }, this.#retryMs);
    this.#retryTimer.unref();
  }

  async close() {
    await this.#coalescer.flush().catch(() => undefined);
    this.#closed = true;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    for (const pending of this.#pending.values()) pending.finish();
    const client = this.#client;
    this.#client = null;
    this.#subs.clear();
    if (client) {
      client.removeAllListeners();
      client.on("error", () => undefined);
      await client.end().catch(() => undefined);
    }
    await this.#pool.end().catch(() => undefined);
  }
}
