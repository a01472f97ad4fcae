import type { AdminAnalytics } from "@hikaya/contracts";
import { formatDateTime, formatShortDate } from "../../lib/format.ts";
import { type TFunction, useTranslation } from "../../lib/i18n.ts";
import { Link } from "../../lib/router.tsx";

type T = TFunction<"admin">;

/** A wait as a person reads it: "45 s", "12 min", "3 h 5 min", "2 d 4 h" (in the console's language). */
export function waitText(seconds: number, t: T): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return t("analytics.wait.seconds", { s });
  const m = Math.round(s / 60);
  if (m < 60) return t("analytics.wait.minutes", { m });
  if (m < 24 * 60) return t("analytics.wait.hours", { h: Math.floor(m / 60), m: m % 60 });
  const h = Math.floor(m / 60);
  return t("analytics.wait.days", { d: Math.floor(h / 24), h: h % 24 });
}

/**
 * How the team is doing: the first-response time per week (median and 90th percentile, server: admin/analytics)
 * and the conversations waiting longest for an answer now, each linking to it in the inbox.
 */
export function FirstResponse({ data, now = Date.now() }: { data: AdminAnalytics["firstResponse"]; now?: number }) {
  const { t, i18n } = useTranslation("admin");
  const none = t("analytics.firstResponse.none");
  return (
    <>
      <section className="admin-card admin-section admin-charts__wide" aria-labelledby="first-response-title">
        <h2 id="first-response-title">{t("analytics.firstResponse.title")}</h2>
        <p className="admin-hint">{t("analytics.firstResponse.hint")}</p>
        <div className="admin-table-wrap">
          <table className="admin-table" data-testid="first-response">
            <thead>
              <tr>
                <th scope="col">{t("analytics.firstResponse.week")}</th>
                <th scope="col">{t("analytics.firstResponse.median")}</th>
                <th scope="col">{t("analytics.firstResponse.p90")}</th>
                <th scope="col">{t("analytics.firstResponse.answered")}</th>
                <th scope="col">{t("analytics.firstResponse.unanswered")}</th>
              </tr>
            </thead>
            <tbody>
              {data.weeks.map((w) => (
                <tr key={w.weekStart}>
                  <th scope="row" className="admin-nowrap">
                    {t("analytics.firstResponse.weekOf", { day: formatShortDate(`${w.weekStart}T12:00:00Z`, i18n.language) })}
                  </th>
                  <td>{w.medianSeconds === null ? none : waitText(w.medianSeconds, t)}</td>
                  <td>{w.p90Seconds === null ? none : waitText(w.p90Seconds, t)}</td>
                  <td>{w.answered}</td>
                  <td>{w.unanswered}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section className="admin-card admin-section admin-charts__wide" aria-labelledby="waiting-title">
        <h2 id="waiting-title">{t("analytics.waiting.title")}</h2>
        {data.longestWaiting.length === 0 ? (
          <p className="admin-muted">{t("analytics.waiting.none")}</p>
        ) : (
          <ol className="admin-list" data-testid="longest-waiting">
            {data.longestWaiting.map((w) => (
              <li key={w.userId}>
                <Link to={`/admin/inbox/${w.userId}`}>
                  <bdi>{w.name ?? t("analytics.waiting.noName")}</bdi>
                </Link>{" "}
                <span className="admin-muted">
                  {t("analytics.waiting.since", {
                    wait: waitText((now - Date.parse(w.waitingSince)) / 1000, t),
                    when: formatDateTime(w.waitingSince, i18n.language),
                  })}
                </span>
              </li>
            ))}
          </ol>
        )}
      </section>
    </>
  );
}
