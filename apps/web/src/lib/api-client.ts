/**
 * Calls to Hikaya's own server. Public API calls answer JSON or `{ code, message }` errors; token API
 * calls are POSTs with the stored access token and answer the spec's `{ code, data }` envelope
 * (section 7). Both throw `ApiError`, whose `code` the UI translates; raw server English is never shown.
 */
import type { ErrorCode } from "@hikaya/contracts";
import { getAccessToken } from "./session.ts";

export class ApiError extends Error {
  readonly code: ErrorCode | "network";
  readonly status: number;

  constructor(code: ErrorCode | "network", message: string, status: number) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = status;
  }
}

function authHeaders(): Record<string, string> {
  const token = getAccessToken();
  return token ? { authorization: `Bearer ${token}`, "x-auth-token": token } : {};
}

async function send(path: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(path, init);
  } catch {
    throw new ApiError("network", "Network error", 0);
  }
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

/** Public API: GET/POST/PUT/DELETE with JSON. */
export async function api<T>(path: string, options: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  const res = await send(`/api${path}`, {
    method: options.method ?? (options.body === undefined ? "GET" : "POST"),
    headers: { ...(options.body === undefined ? {} : { "content-type": "application/json" }), ...authHeaders() },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
  });
  const body = (await readJson(res)) as { code?: string; message?: string } | undefined;
  if (!res.ok) {
    throw new ApiError((body?.code as ErrorCode) ?? statusCode(res.status), body?.message ?? res.statusText, res.status);
  }
  return body as T;
}

/** Token API: POST with the access token, JSON or multipart, unwrapping `{ code, data }`. */
export async function tokenApi<T>(path: string, body?: Record<string, unknown> | FormData, signal?: AbortSignal): Promise<T> {
  const isForm = body instanceof FormData;
  const res = await send(`/api${path}`, {
    method: "POST",
    headers: { ...(isForm ? {} : { "content-type": "application/json" }), ...authHeaders() },
    body: isForm ? body : JSON.stringify(body ?? {}),
    signal,
  });
  const envelope = (await readJson(res)) as { code?: number; data?: unknown; errorCode?: string } | undefined;
  if (envelope?.code === 200 && res.ok) return envelope.data as T;
  const code = (envelope?.errorCode as ErrorCode | undefined) ?? statusCode(res.status);
  throw new ApiError(code, typeof envelope?.data === "string" ? envelope.data : res.statusText, res.status);
}
