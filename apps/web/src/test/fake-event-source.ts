/**
 * EventSource for tests: the server side of each stream is driven by the test (open, send a message,
 * drop it), and every stream the code opened is kept in `FakeEventSource.opened` with its URL.
 */
export class FakeEventSource {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  static opened: FakeEventSource[] = [];

  readonly url: string;
  readyState = FakeEventSource.CONNECTING;
  readonly #listeners = new Map<string, ((event: Event) => void)[]>();

  constructor(url: string) {
    this.url = url;
    FakeEventSource.opened.push(this);
  }

  get params(): URLSearchParams {
    return new URL(this.url, "http://local").searchParams;
  }

  addEventListener(type: string, listener: (event: Event) => void) {
    this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), listener]);
  }

  close() {
    this.readyState = FakeEventSource.CLOSED;
  }

  /** The server answered and replayed what was missed. */
  ready() {
    this.readyState = FakeEventSource.OPEN;
    this.#dispatch("ready", new MessageEvent("ready", { data: "" }));
  }

  message(data: unknown) {
    this.#dispatch("message", new MessageEvent("message", { data: JSON.stringify(data) }));
  }

  /** A named event other than a message (`assignment`, …). */
  event(type: string, data: unknown) {
    this.#dispatch(type, new MessageEvent(type, { data: JSON.stringify(data) }));
  }

  /** The stream ended: an expired token, a restart. The browser gives up on it (CLOSED). */
  drop() {
    this.readyState = FakeEventSource.CLOSED;
    this.#dispatch("error", new Event("error"));
  }

  #dispatch(type: string, event: Event) {
    for (const listener of this.#listeners.get(type) ?? []) listener(event);
  }

  static latest(): FakeEventSource {
    const last = FakeEventSource.opened.at(-1);
    if (!last) throw new Error("no EventSource was opened");
    return last;
  }
}
