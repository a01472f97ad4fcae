import pg from "pg";
import { CHANNEL_NAME, type MessageBus } from "./bus.ts";

interface Subscription {
  listener: (payload: string) => void;
  onGap?: () => void;
}

/**
 * LISTEN/NOTIFY on a dedicated connection (a pooled one could be handed to someone else between
 * LISTEN and the notification). If that connection drops it reconnects with backoff, listens again and
 * tells subscribers there may be a gap, so they re-read from the database. Publishing goes through
 * short-lived pool queries (`pg_notify`), so a publisher never waits on the listener's reconnects.
 */
export class PostgresBus implements MessageBus {
  readonly kind = "postgres" as const;
  readonly #url: string;
  readonly #pool: pg.Pool;
  readonly #subs = new Map<string, Set<Subscription>>();
  #client: pg.Client | null = null;
  #connecting: Promise<pg.Client> | null = null;
  #closed = false;
  #retryMs = 200;
  #retryTimer: NodeJS.Timeout | null = null;

  constructor(url: string) {
    this.#url = url;
    this.#pool = new pg.Pool({ connectionString: url, max: 2 });
    this.#pool.on("error", () => undefined);
  }

  async publish(channel: string, payload: string) {
    if (!CHANNEL_NAME.test(channel)) throw new Error(`invalid channel name ${channel}`);
    await this.#pool.query("select pg_notify($1, $2)", [channel, payload]);
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
    if (first) await client.query(`listen ${channel}`);
    return async () => {
      set.delete(sub);
      if (set.size === 0 && this.#subs.get(channel) === set) {
        this.#subs.delete(channel);
        await this.#client?.query(`unlisten ${channel}`).catch(() => undefined);
      }
    };
  }

  #connect(): Promise<pg.Client> {
    if (this.#client) return Promise.resolve(this.#client);
    this.#connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.#url });
      client.on("notification", (n) => {
        for (const sub of this.#subs.get(n.channel) ?? []) sub.listener(n.payload ?? "");
      });
      client.on("error", () => this.#lost(client));
      client.on("end", () => this.#lost(client));
      try {
        await client.connect();
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
    this.#closed = true;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
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
