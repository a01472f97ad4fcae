import { useEffect, useState } from "react";
import { useTranslation } from "../../lib/i18n.ts";

type Permission = NotificationPermission | "unsupported";

const current = (): Permission => (typeof Notification === "undefined" ? "unsupported" : Notification.permission);

/**
 * Asks for desktop notifications when the operator chooses to (never on load): the console then tells them of a
 * family's message while its tab is hidden (admin/inbox-alerts.ts).
 */
export function NotificationsButton() {
  const { t } = useTranslation("inbox");
  const [permission, setPermission] = useState<Permission>("default");
  useEffect(() => setPermission(current()), []);
  if (permission === "unsupported") return null;
  if (permission !== "default")
    return (
      <span className="admin-muted inbox__notify-state">
        {permission === "granted" ? t("notifications.on") : t("notifications.blocked")}
      </span>
    );
  return (
    <button
      type="button"
      className="admin-button admin-button--small"
      onClick={() => void Notification.requestPermission().then(setPermission, () => setPermission(current()))}
    >
      {t("notifications.enable")}
    </button>
  );
}
