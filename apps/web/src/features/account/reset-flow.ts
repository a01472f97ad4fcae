/**
 * What the forgot-password flow carries from screen to screen (country and phone for Re-Send, the
 * reset token). Kept in sessionStorage so a reload mid-flow loses nothing, and gone with the tab.
 */
const KEY = "passwordReset";

export interface ResetFlow {
  country?: string;
  phoneNumber?: string;
  userId?: string;
  token?: string;
  /** An account with an authenticator factor: the recovery session (aal1) that must pass it, and the factor. */
  mfa?: { factorId: string; accessToken: string };
  /** That session's access token once it passed the factor (aal2): reset-password is sent with it. */
  passedToken?: string;
}

export function readResetFlow(): ResetFlow {
  try {
    return JSON.parse(sessionStorage.getItem(KEY) ?? "{}") as ResetFlow;
  } catch {
    return {};
  }
}

export function writeResetFlow(patch: ResetFlow) {
  sessionStorage.setItem(KEY, JSON.stringify({ ...readResetFlow(), ...patch }));
}

export function clearResetFlow() {
  sessionStorage.removeItem(KEY);
}

/** Seconds before the code can be sent again. */
export const RESEND_AFTER_SECONDS = 60;
