import { useEffect, useState } from "react";
import { ApiError } from "../lib/api-client.ts";
import { requireSession } from "../lib/auth.ts";
import { useTranslation } from "../lib/i18n.ts";
import { useMe } from "../lib/me.ts";
import { rememberReturnPath } from "../lib/return-path.ts";
import { useNavigate } from "../lib/router.tsx";
import { getAccessToken } from "../lib/session.ts";
import { toast } from "../lib/toast.tsx";

/** One session check per page load (the session refreshes itself from then on); a 401 asks the server. */
let checked: Promise<boolean> | undefined;
function checkSession(verify = false): Promise<boolean> {
  if (verify) return requireSession({ verify: true }).then(Boolean);
  checked ??= requireSession().then(Boolean, () => Boolean(getAccessToken()));
  return checked;
}

/**
 * Spec section 6: on load, check for a current user; without one go to /login with the error toast
 * "Please log in.". A token the server refuses (401) is checked once more, after a refresh, before
 * the person is sent to log in.
 */
export function useRequireUser(): boolean {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [signedIn, setSignedIn] = useState(() => Boolean(getAccessToken()));
  const me = useMe();
  const rejected = me.error instanceof ApiError && me.error.status === 401;

  useEffect(() => {
    let live = true;
    const leave = () => {
      if (!live) return;
      setSignedIn(false);
      toast.error(t("errors.unauthorized"), { toastId: "please-log-in" });
      // Back here once signed in (a reminder's link to a story must not end at home).
      rememberReturnPath(window.location.pathname + window.location.search);
      navigate("/login", { replace: true });
    };
    if (!getAccessToken()) {
      leave();
      return;
    }
    void checkSession(rejected).then((ok) => {
      if (!ok) leave();
      else if (rejected) void me.refetch();
    });
    return () => {
      live = false;
    };
  }, [rejected, navigate, t, me.refetch]);

  return signedIn;
}
