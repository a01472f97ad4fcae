import { getAccessToken } from "../lib/session.ts";

/**
 * The console's own check of the stored access token (localStorage `token`): its JWT payload must say
 * app_metadata.role = "admin" and not be expired. This only decides what to show; the server checks the
 * signature and refuses every /api/admin call from anyone else anyway.
 */
export type AdminSessionState =
  | { status: "admin"; userId: string; email: string; expiresAt: number }
  | { status: "none" | "expired" | "not_admin" };

interface Payload {
  sub?: string;
  email?: string;
  exp?: number;
  app_metadata?: { role?: unknown };
}

export function decodeJwtPayload(token: string): Payload | null {
  const part = token.split(".")[1];
  if (!part) return null;
  try {
    const base64 = part
      .replace(/-/g, "+")
      .replace(/_/g, "/")
      .padEnd(Math.ceil(part.length / 4) * 4, "=");
    const json = new TextDecoder().decode(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)));
    const value = JSON.parse(json);
    return value && typeof value === "object" ? value : null;
  } catch {
    return null;
  }
}

export function adminSession(token = getAccessToken(), now = Date.now()): AdminSessionState {
  if (!token) return { status: "none" };
  const payload = decodeJwtPayload(token);
  if (!payload?.sub) return { status: "none" };
  if (payload.app_metadata?.role !== "admin") return { status: "not_admin" };
  if (typeof payload.exp === "number" && payload.exp * 1000 <= now) return { status: "expired" };
  return { status: "admin", userId: payload.sub, email: payload.email ?? "", expiresAt: (payload.exp ?? 0) * 1000 };
}
