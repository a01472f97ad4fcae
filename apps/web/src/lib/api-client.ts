/**
 * Calls to Hikaya's own server. Public API calls answer JSON or `{ code, message }` errors; token API
 * calls are POSTs with the stored access token and answer the spec's `{ code, data }` envelope
 * (section 7). Both throw `ApiError`, whose `code` the UI translates; raw server English is never shown.
 */
import type { ErrorCode } from "@hikaya/contracts";
import type { AuthSession } from "./auth-session.ts";
import { getFreshAccessToken, userSession } from "./session.ts";

export class ApiError extends Error {
  readonly code: ErrorCode | "network";
  readonly status: number;
  /** The server's `details`: which field was refused and why (`{ field, reason }`), or a 429's wait. */
  readonly details: unknown;
  /** How long to wait before trying again, from a 429's `Retry-After` or details. */
  readonly retryAfterSeconds: number | null;

  constructor(
    code: ErrorCode | "network",
    message: string,
    status: number,
    details?: unknown,
    retryAfterSeconds?: number | null,
  ) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = status;
    this.details = details;
    const fromDetails = (details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
    this.retryAfterSeconds = typeof fromDetails === "number" ? fromDetails : (retryAfterSeconds ?? null);
  }
}

function retryAfter(res: Response): number | null {
  const value = Number(res.headers.get("retry-after"));
  return Number.isFinite(value) && value > 0 ? value : null;
}

/** Whose session signs a call: the user app's (default) or the console's. */
type Session = AuthSession;

async function authHeaders(session: Session): Promise<Record<string, string>> {
  const token = session === userSession ? await getFreshAccessToken() : ((await session.fresh())?.access_token ?? null);
  return token ? { authorization: `Bearer ${token}`, "x-auth-token": token } : {};
}

/**
 * Sends with a fresh access token. A 401 for an expired token (a laptop woken from sleep, a clock
 * that drifted) refreshes the session once and tries again; a refused refresh signs the person out.
 */
export async function send(path: string, init: RequestInit, session: Session = userSession): Promise<Response> {
  const attempt = async () => {
    try {
      return await fetch(path, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), ...(await authHeaders(session)) },
      });
    } catch {
      throw new ApiError("network", "Network error", 0);
    }
  };
  const res = await attempt();
  if (res.status !== 401 || !session.get()) return res;
  const refreshed = await session.refresh().catch(() => null);
  return refreshed ? attempt() : res;
}

async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(res.ok ? "internal_error" : statusCode(res.status), text.slice(0, 200), res.status);
  }
}

function statusCode(status: number): ErrorCode {
  if (status === 401) return "unauthorized";
  if (status === 403) return "forbidden";
  if (status === 404) return "not_found";
  if (status === 413) return "payload_too_large";
  if (status === 415) return "unsupported_media_type";
  if (status === 429) return "rate_limited";
  if (status >= 500) return "internal_error";
  return "bad_request";
}

/** Public API: GET/POST/PUT/DELETE with JSON (or a FormData body, sent as multipart). */
export async function api<T>(
  path: string,
  options: {
    method?: string;
    body?: unknown;
    signal?: AbortSignal;
    session?: Session;
    /** A token of its own instead of a stored session's (a password reset's recovery session). */
    token?: string;
    /** Outlives the page (a write sent as the person leaves it). */
    keepalive?: boolean;
  } = {},
): Promise<T> {
  const form = options.body instanceof FormData ? options.body : null;
  const init: RequestInit = {
    method: options.method ?? (options.body === undefined ? "GET" : "POST"),
    headers: options.body === undefined || form ? {} : { "content-type": "application/json" },
    body: form ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
    signal: options.signal,
    ...(options.keepalive ? { keepalive: true } : {}),
  };
  const res = options.token
    ? await fetch(`/api${path}`, { ...init, headers: { ...init.headers, authorization: `Bearer ${options.token}` } }).catch(
        () => {
          throw new ApiError("network", "Network error", 0);
        },
      )
    : await send(`/api${path}`, init, options.session);
  const body = (await readJson(res)) as { code?: string; message?: string; details?: unknown } | undefined;
  if (!res.ok) {
    throw new ApiError(
      (body?.code as ErrorCode) ?? statusCode(res.status),
      body?.message ?? res.statusText,
      res.status,
      body?.details,
      retryAfter(res),
    );
  }
  return body as T;
}

/** Token API: POST with the access token, JSON or multipart, unwrapping `{ code, data }`. */
export async function tokenApi<T>(path: string, body?: Record<string, unknown> | FormData, signal?: AbortSignal): Promise<T> {
  const isForm = body instanceof FormData;
  const res = await send(`/api${path}`, {
    method: "POST",
    headers: isForm ? {} : { "content-type": "application/json" },
    body: isForm ? body : JSON.stringify(body ?? {}),
    signal,
  });
  const envelope = (await readJson(res)) as { code?: number; data?: unknown; errorCode?: string } | undefined;
  if (envelope?.code === 200 && res.ok) return envelope.data as T;
  const code = (envelope?.errorCode as ErrorCode | undefined) ?? statusCode(res.status);
  throw new ApiError(
    code,
    typeof envelope?.data === "string" ? envelope.data : res.statusText,
    res.status,
    undefined,
    retryAfter(res),
  );
}
