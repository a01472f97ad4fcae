/** A JWT's payload, decoded without verifying it: only to decide what to show. The server verifies every call. */
export interface JwtPayload {
  sub?: string;
  email?: string;
  exp?: number;
  app_metadata?: { role?: unknown };
}

export function decodeJwtPayload(token: string): JwtPayload | null {
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
