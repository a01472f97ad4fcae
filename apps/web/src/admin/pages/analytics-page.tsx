import type { AdminAnalytics } from "@hikaya/contracts";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { isRtl, useTranslation } from "../../lib/i18n.ts";
import { adminQueries } from "../api.ts";
import { DayBars, HBars } from "../components/charts.tsx";
import { PageHeader, QueryView } from "../components/page.tsx";
import { analyticsCsv } from "../logic.ts";
import { FirstResponse } from "./first-response.tsx";

const day = (offsetDays = 0) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/** The spec's analytics events as pictures: the funnel, sign-ups, recordings and messages, with a date range and CSV. */
export function AnalyticsPage() {
  const { t, i18n } = useTranslation("admin");
  const [from, setFrom] = useState(day(-29));
  const [to, setTo] = useState(day());
  const valid = from <= to;
  const query = useQuery({ ...adminQueries.analytics(from, to), enabled: valid });
  const rtl = isRtl(i18n.language);

  function download(data: AdminAnalytics) {
    const url = URL.createObjectURL(new Blob([analyticsCsv(data)], { type: "text/csv;charset=utf-8" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = `hikaya-analytics-${data.from}-${data.to}.csv`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  return (
    <>
      <PageHeader
        title={t("analytics.title")}
        subtitle={t("analytics.intro")}
        actions={
          <button
            type="button"
            className="admin-button"
            disabled={!query.data}
            onClick={() => query.data && download(query.data)}
          >
            {t("analytics.csv")}
          </button>
        }
      />
      <div className="admin-card admin-toolbar">
        <label htmlFor="an-from">{t("analytics.from")}</label>
        <input
          id="an-from"
          type="date"
          className="admin-input ltr"
          value={from}
          max={to}
          onChange={(e) => setFrom(e.target.value)}
        />
        <label htmlFor="an-to">{t("analytics.to")}</label>
        <input id="an-to" type="date" className="admin-input ltr" value={to} min={from} onChange={(e) => setTo(e.target.value)} />
        {!valid && (
          <span className="admin-error" role="alert">
            {t("analytics.badRange")}
          </span>
        )}
      </div>
      <QueryView query={query}>
        {(data) => {
          const funnel = data.funnel.map((f) => ({
            label:
              f.step === "story_watched"
                ? t("analytics.storyWatched", { n: f.storyOrder })
                : t(`analytics.steps.${f.step}` as "analytics.steps.signup"),
            count: f.count,
          }));
          return (
            <div className="admin-charts">
              <section className="admin-card admin-section admin-charts__wide">
                <h2>{t("analytics.funnel")}</h2>
                <HBars rows={funnel} label={t("analytics.funnel")} rtl={rtl} />
              </section>
              <section className="admin-card admin-section">
                <h2>{t("analytics.signups")}</h2>
                <DayBars data={data.signupsPerDay} label={t("analytics.signups")} rtl={rtl} />
              </section>
              <section className="admin-card admin-section">
                <h2>{t("analytics.messages")}</h2>
                <DayBars data={data.messagesPerDay} label={t("analytics.messages")} rtl={rtl} color="var(--admin-accent-2)" />
              </section>
              <section className="admin-card admin-section admin-charts__wide">
                <h2>{t("analytics.recordings")}</h2>
                <HBars
                  rows={data.recordingsPerStory.map((r) => ({
                    label: `${r.order}. ${rtl ? r.titleAr : r.titleEn}`,
                    count: r.count,
                  }))}
                  label={t("analytics.recordings")}
                  rtl={rtl}
                  color="var(--admin-accent-2)"
                />
              </section>
              <FirstResponse data={data.firstResponse} />
            </div>
          );
        }}
      </QueryView>
    </>
  );
}
