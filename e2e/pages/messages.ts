import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type APIRequestContext, type Browser, type BrowserContext, expect, type Locator, type Page } from "@playwright/test";
import arInbox from "../../apps/web/src/locales/ar/inbox.json" with { type: "json" };
import arMessages from "../../apps/web/src/locales/ar/messages.json" with { type: "json" };
import enInbox from "../../apps/web/src/locales/en/inbox.json" with { type: "json" };
import enMessages from "../../apps/web/src/locales/en/messages.json" with { type: "json" };
import type { Lang } from "../support/fixtures.ts";
import { E2E_ADMIN } from "../support/global-setup.ts";
import { adminToken } from "./admin.ts";

export const MESSAGE_STRINGS = { en: enMessages, ar: arMessages } as const;
export const INBOX_STRINGS = { en: enInbox, ar: arInbox } as const;

/** A session as the browser keeps it: the access token, the refresh token that renews it, and its expiry. */
export interface BrowserSession {
  token: string;
  userId: string;
  refreshToken: string;
  /** Unix seconds. */
  expiresAt: number;
}

export interface ChatUser extends BrowserSession {
  phone: string;
}

export interface ApiMessage {
  _id: string;
  from: string;
  messageType: "text" | "audio";
  message: string;
  senderRole: "user" | "facilitator";
}

/** A new person through the phone sign-up API, optionally with a complete profile. */
export async function createChatUser(request: APIRequestContext, baseURL = "", profile = true): Promise<ChatUser> {
  const phone = `78${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`;
  const res = await request.post(`${baseURL}/api/sign-up`, {
    data: { country: "+962", phoneNumber: phone, password: "message-pass-1", agreeToReminder: true },
  });
  expect(res.status(), await res.text()).toBe(200);
  const body = (await res.json()) as { token: string; refreshToken: string; expiresAt: number; user: { id: string } };
  const user = { token: body.token, userId: body.user.id, refreshToken: body.refreshToken, expiresAt: body.expiresAt, phone };
  if (profile) {
    const update = await request.post(`${baseURL}/api/profile/update`, {
      headers: { authorization: `Bearer ${user.token}` },
      multipart: { name: "Layla Haddad", city: "Amman", gender: "Female", ageGroup: "31-50" },
    });
    expect(update.status(), await update.text()).toBe(200);
  }
  return user;
}

/** The facilitator admin's session from /auth/v1/token (apikey = the anon key of /api/settings). */
export async function facilitatorSession(request: APIRequestContext, baseURL = ""): Promise<BrowserSession> {
  const settings = (await (await request.get(`${baseURL}/api/settings`)).json()) as { anonKey: string };
  const res = await request.post(`${baseURL}/auth/v1/token?grant_type=password`, {
    headers: { apikey: settings.anonKey },
    data: { email: E2E_ADMIN.email, password: E2E_ADMIN.password },
  });
  expect(res.status(), await res.text()).toBe(200);
  const body = (await res.json()) as { access_token: string; refresh_token: string; expires_at: number; user: { id: string } };
  return { token: body.access_token, userId: body.user.id, refreshToken: body.refresh_token, expiresAt: body.expires_at };
}

const FACILITATOR_PASSWORD = "facilitator-pass-1";

/** A facilitator made the way the console does (an invitation), with a password set, signed in. */
export async function invitedFacilitator(request: APIRequestContext, email: string): Promise<BrowserSession> {
  const headers = { authorization: `Bearer ${await adminToken(request)}` };
  const invited = await request.post("/api/admin/team", { headers, data: { email, role: "facilitator" } });
  expect(invited.status(), await invited.text()).toBeLessThan(300);
  const team = (await (await request.get("/api/admin/team", { headers })).json()) as { id: string; email: string | null }[];
  const id = team.find((m) => m.email === email)?.id ?? "";
  const { anonKey } = (await (await request.get("/api/settings")).json()) as { anonKey: string };
  const set = await request.put(`/auth/v1/admin/users/${id}`, {
    headers: { ...headers, apikey: anonKey },
    data: { password: FACILITATOR_PASSWORD, email_confirm: true },
  });
  expect(set.status(), await set.text()).toBe(200);
  const res = await request.post("/auth/v1/token?grant_type=password", {
    headers: { apikey: anonKey },
    data: { email, password: FACILITATOR_PASSWORD },
  });
  expect(res.status(), await res.text()).toBe(200);
  const body = (await res.json()) as { access_token: string; refresh_token: string; expires_at: number; user: { id: string } };
  return { token: body.access_token, userId: body.user.id, refreshToken: body.refresh_token, expiresAt: body.expires_at };
}

/**
 * Stores a remembered session where the app keeps it (lib/session.ts for the user app, the console's
 * own key for /admin), with the language, before any page script runs — once per context, so a page
 * that refreshes its tokens later is not handed the spent ones again on reload.
 */
export async function storeSession(
  target: Page | BrowserContext,
  session: BrowserSession,
  lang: Lang,
  app: "user" | "console" = "user",
) {
  await target.addInitScript(
    ({ session, lang, key, mirror }) => {
      if (localStorage.getItem(`e2e-seeded:${key}`)) return;
      localStorage.setItem(`e2e-seeded:${key}`, "1");
      const stored = {
        access_token: session.token,
        refresh_token: session.refreshToken,
        expires_at: session.expiresAt,
        user: { id: session.userId },
      };
      localStorage.setItem(key, JSON.stringify(stored));
      if (mirror) {
        localStorage.setItem("token", session.token);
        localStorage.setItem("userId", session.userId);
      }
      localStorage.setItem("i18nextLng", lang);
    },
    { session, lang, key: app === "console" ? "hikaya-console-auth" : "hikaya-auth", mirror: app === "user" },
  );
}

/** A second browser context sized like a laptop, for the console. */
export async function consoleContext(browser: Browser, baseURL: string, lang: Lang): Promise<BrowserContext> {
  return browser.newContext({
    baseURL,
    viewport: { width: 1280, height: 800 },
    locale: lang === "ar" ? "ar" : "en-US",
    permissions: ["microphone"],
  });
}

export async function listMessages(request: APIRequestContext, user: ChatUser, baseURL = ""): Promise<ApiMessage[]> {
  const res = await request.post(`${baseURL}/api/messages`, {
    headers: { authorization: `Bearer ${user.token}` },
    data: { limit: 200 },
  });
  expect(res.status()).toBe(200);
  return ((await res.json()) as { data: { messages: ApiMessage[] } }).data.messages;
}

export async function replyAsFacilitator(request: APIRequestContext, token: string, userId: string, text: string, baseURL = "") {
  const res = await request.post(`${baseURL}/api/admin/conversations/${userId}/messages`, {
    headers: { authorization: `Bearer ${token}` },
    data: { message: text, messageType: "text" },
  });
  expect(res.status(), await res.text()).toBe(200);
}

/** Page object for one chat surface: the family's /chats or a conversation in the console inbox. */
export class ChatPane {
  readonly page: Page;
  readonly s: typeof enMessages;
  readonly root: Locator;

  constructor(page: Page, lang: Lang, root?: Locator) {
    this.page = page;
    this.s = MESSAGE_STRINGS[lang] as typeof enMessages;
    this.root = root ?? page.locator("body");
  }

  /** The message field: a text box, or in the console a combobox (it lists the saved replies after a "/"). */
  get input() {
    const name = this.s.placeholder;
    return this.root.getByRole("textbox", { name }).or(this.root.getByRole("combobox", { name }));
  }

  get list() {
    return this.root.locator("ul.chat-list");
  }

  bubble(text: string) {
    return this.list.locator("li.bubble-row", { hasText: text });
  }

  get voiceNotes() {
    return this.list.getByRole("button", { name: new RegExp(`${this.s.play}: ${this.s.voiceMessage}`) });
  }

  async sendText(text: string) {
    await this.input.fill(text);
    await this.root.getByRole("button", { name: this.s.send }).click();
  }

  /** Holds the microphone (Chromium's fake device feeds it a tone), releases it, then sends the take. */
  async recordAndSend(ms = 1500, whileRecording?: () => Promise<void>, beforeSend?: () => Promise<void>) {
    const mic = this.root.getByRole("button", { name: this.s.holdToRecord });
    await mic.hover();
    await this.page.mouse.down();
    await expect(this.root.locator("output.composer__recording")).toBeVisible();
    await this.page.waitForTimeout(ms);
    await whileRecording?.();
    await this.page.mouse.up();
    await expect(this.root.getByRole("button", { name: this.s.discard })).toBeVisible();
    await beforeSend?.();
    await this.root.getByRole("button", { name: this.s.send }).click();
  }
}

/**
 * A tiny reverse proxy on a fixed port: the browser keeps one origin while the server behind it is
 * killed and started again on another port, as behind a load balancer. Streams responses (SSE).
 */
export async function startProxy(): Promise<{ url: string; setTarget(url: string | null): void; close(): Promise<void> }> {
  let target: URL | null = null;
  const server: Server = createServer((req, res) => {
    if (!target) {
      res.writeHead(502).end("backend down");
      return;
    }
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
        up.on("error", () => res.destroy());
      },
    );
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502).end("backend down");
      else res.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setTarget(url) {
      target = url ? new URL(url) : null;
    },
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
