import { REMINDER_JOB_STATUSES, type ReminderJobStatus, type ReminderSettings } from "@hikaya/contracts";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useCallback, useEffect, useId, useState } from "react";
import { SubmitButton } from "../../components/submit-button.tsx";
import { ApiError } from "../../lib/api-client.ts";
import { errorText } from "../../lib/errors.ts";
import { formatDateTime } from "../../lib/format.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";
import { AdminField } from "../components/admin-field.tsx";
import { PageHeader, QueryView } from "../components/page.tsx";
import { StaleNotice, staleCurrent } from "../components/stale-notice.tsx";
import { previewReminder, reminderQueries, runDueReminders, saveReminderSettings } from "./reminders-api.ts";

/**
 * Story reminders for operators: the rules, the texts in both languages with a live preview, the queue
 * (due, sent, failed, stopped) with paging, and "send due reminders now" (audited on the server).
 */
export function RemindersPage() {
  const { t } = useTranslation("admin");
  const client = useQueryClient();
  const settings = useQuery(reminderQueries.settings());
  const [running, setRunning] = useState(false);

  async function runNow() {
    setRunning(true);
    try {
      const result = await runDueReminders();
      toast.success(t("reminders.ran", result));
      await client.invalidateQueries({ queryKey: ["admin", "reminders", "queue"] });
    } catch (error) {
      toast.error(errorText(error));
    } finally {
      setRunning(false);
    }
  }

  return (
    <>
      <PageHeader
        title={t("reminders.title")}
        subtitle={t("reminders.intro")}
        actions={
          <button type="button" className="admin-button admin-button--primary" disabled={running} onClick={() => void runNow()}>
            {t("reminders.runNow")}
          </button>
        }
      />
      <QueryView query={settings}>{(s) => <SettingsForm key={s.version} settings={s} />}</QueryView>
      <Queue />
    </>
  );
}

function SettingsForm({ settings }: { settings: ReminderSettings }) {
  const { t } = useTranslation("admin");
  const client = useQueryClient();
  const id = useId();
  const [form, setForm] = useState({
    enabled: settings.enabled,
    firstAfterHours: String(settings.firstAfterHours),
    repeatAfterHours: String(settings.repeatAfterHours),
    maxPerStory: String(settings.maxPerStory),
    windowStart: settings.windowStart,
    windowEnd: settings.windowEnd,
  });
  const [templates, setTemplates] = useState(settings.templates);
  const [saving, setSaving] = useState(false);
  const [fieldError, setFieldError] = useState<{ field: string; text: string } | null>(null);
  const [stale, setStale] = useState<ReminderSettings | null>(null);
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    setFieldError(null);
    try {
      const saved = await saveReminderSettings({
        enabled: form.enabled,
        firstAfterHours: Number(form.firstAfterHours),
        repeatAfterHours: Number(form.repeatAfterHours),
        maxPerStory: Number(form.maxPerStory),
        windowStart: form.windowStart,
        windowEnd: form.windowEnd,
        templates,
        version: settings.version,
      });
      client.setQueryData(reminderQueries.settings().queryKey, saved);
      toast.success(t("reminders.saved"));
    } catch (error) {
      const current = staleCurrent<ReminderSettings>(error);
      if (current) {
        setStale(current);
        return;
      }
      const details =
        error instanceof ApiError ? (error.details as { field?: string; placeholder?: string } | undefined) : undefined;
      if (details?.field?.startsWith("templates.") && details.placeholder !== undefined)
        setFieldError({ field: details.field, text: t("reminders.badPlaceholder", { name: `{${details.placeholder}}` }) });
      toast.error(errorText(error));
    } finally {
      setSaving(false);
    }
  }

  const number = (key: "firstAfterHours" | "repeatAfterHours" | "maxPerStory", max: number) => (
    <AdminField
      id={`${id}-${key}`}
      label={t(`reminders.${key}`)}
      className="ltr"
      type="number"
      inputMode="numeric"
      min={0}
      max={max}
      required
      value={form[key]}
      onChange={set(key)}
    />
  );

  return (
    <>
      {stale && (
        <StaleNotice
          queryKey={reminderQueries.settings().queryKey}
          rows={[
            { label: t("reminders.enabled"), value: stale.enabled ? t("common.yes") : t("common.no") },
            { label: t("reminders.firstAfterHours"), value: String(stale.firstAfterHours) },
            { label: t("reminders.repeatAfterHours"), value: String(stale.repeatAfterHours) },
            { label: t("reminders.maxPerStory"), value: String(stale.maxPerStory) },
            { label: t("reminders.window"), value: `${stale.windowStart}–${stale.windowEnd}` },
            { label: t("reminders.template_en"), value: stale.templates.en },
            { label: t("reminders.template_ar"), value: stale.templates.ar },
          ]}
        />
      )}
      <form className="admin-card admin-form" onSubmit={submit} aria-labelledby={`${id}-title`}>
        <h2 id={`${id}-title`}>{t("reminders.rules")}</h2>
        <label className="admin-checkbox">
          <input type="checkbox" checked={form.enabled} onChange={(e) => setForm({ ...form, enabled: e.target.checked })} />
          <span>{t("reminders.enabled")}</span>
        </label>
        <div className="admin-grid-2">
          {number("firstAfterHours", 8760)}
          {number("repeatAfterHours", 8760)}
          {number("maxPerStory", 20)}
          <div className="admin-field">
            <span className="admin-label">{t("reminders.window")}</span>
            <div className="admin-toolbar">
              <label htmlFor={`${id}-start`} className="visually-hidden">
                {t("reminders.windowStart")}
              </label>
              <input
                id={`${id}-start`}
                className="admin-input ltr"
                type="time"
                required
                value={form.windowStart}
                onChange={set("windowStart")}
              />
              <span aria-hidden="true">–</span>
              <label htmlFor={`${id}-end`} className="visually-hidden">
                {t("reminders.windowEnd")}
              </label>
              <input
                id={`${id}-end`}
                className="admin-input ltr"
                type="time"
                required
                value={form.windowEnd}
                onChange={set("windowEnd")}
              />
            </div>
            <p className="admin-muted">{t("reminders.windowHint")}</p>
          </div>
        </div>
        <h2>{t("reminders.templates")}</h2>
        <p className="admin-muted">
          {t("reminders.placeholders")} <bdi className="ltr">{settings.placeholders.map((p) => `{${p}}`).join(" ")}</bdi>
        </p>
        <div className="admin-grid-2">
          {(["en", "ar"] as const).map((language) => (
            <TemplateField
              key={language}
              language={language}
              value={templates[language]}
              error={fieldError?.field === `templates.${language}` ? fieldError.text : null}
              onChange={(value) => setTemplates({ ...templates, [language]: value })}
            />
          ))}
        </div>
        <SubmitButton busy={saving}>{t("common.save")}</SubmitButton>
      </form>
    </>
  );
}

function TemplateField(props: { language: "en" | "ar"; value: string; error: string | null; onChange(value: string): void }) {
  const { t } = useTranslation("admin");
  const placeholderError = useCallback(
    (error: unknown) => {
      const details = error instanceof ApiError ? (error.details as { placeholder?: string } | undefined) : undefined;
      return details?.placeholder !== undefined ? t("reminders.badPlaceholder", { name: `{${details.placeholder}}` }) : null;
    },
    [t],
  );
  const id = useId();
  const [preview, setPreview] = useState<{ text: string } | { error: string } | null>(null);
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      previewReminder(props.language, props.value).then(
        (r) => live && setPreview({ text: r.text }),
        (error) => live && setPreview({ error: placeholderError(error) ?? errorText(error) }),
      );
    }, 300);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [props.language, props.value, placeholderError]);
  return (
    <div className="admin-field">
      <label htmlFor={id}>{t(`reminders.template_${props.language}`)}</label>
      <textarea
        id={id}
        className="admin-input"
        dir={props.language === "ar" ? "rtl" : "ltr"}
        rows={4}
        maxLength={1000}
        required
        aria-invalid={props.error ? true : undefined}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
      />
      {props.error && <p className="admin-error">{props.error}</p>}
      <div className="admin-reminder-preview" dir={props.language === "ar" ? "rtl" : "ltr"} aria-live="polite">
        <span className="admin-label">{t("reminders.preview")}</span>
        {preview && "text" in preview && (
          <p data-testid={`preview-${props.language}`}>
            <WithLinksIsolated text={preview.text} />
          </p>
        )}
        {preview && "error" in preview && <p className="admin-error">{preview.error}</p>}
      </div>
    </div>
  );
}

function Queue() {
  const { t, i18n } = useTranslation("admin");
  const [status, setStatus] = useState<ReminderJobStatus | "all">("all");
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const before = cursors.at(-1) ?? null;
  const query = useQuery({ ...reminderQueries.queue(status, before), refetchInterval: 30_000 });
  const choose = (s: ReminderJobStatus | "all") => {
    setStatus(s);
    setCursors([null]);
  };
  return (
    <section className="admin-card" aria-labelledby="reminder-queue-title">
      <h2 id="reminder-queue-title">{t("reminders.queue")}</h2>
      <div className="admin-tabs" role="tablist" aria-label={t("reminders.filter")}>
        {(["all", ...REMINDER_JOB_STATUSES] as const).map((s) => (
          <button key={s} type="button" role="tab" aria-selected={status === s} className="admin-tab" onClick={() => choose(s)}>
            {t(`reminders.statuses.${s}`)}
            {s !== "all" && query.data ? ` (${query.data.counts[s] ?? 0})` : ""}
          </button>
        ))}
      </div>
      <QueryView query={query}>
        {(page) =>
          page.jobs.length === 0 ? (
            <p className="admin-muted">{t("reminders.none")}</p>
          ) : (
            <>
              <div className="admin-table-wrap">
                <table className="admin-table">
                  <thead>
                    <tr>
                      <th scope="col">{t("reminders.person")}</th>
                      <th scope="col">{t("reminders.story")}</th>
                      <th scope="col">{t("reminders.status")}</th>
                      <th scope="col">{t("reminders.due")}</th>
                      <th scope="col">{t("reminders.sentAt")}</th>
                      <th scope="col">{t("reminders.attempts")}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.jobs.map((job) => (
                      <tr key={job.id}>
                        <td>{job.name ?? <bdi className="ltr">{job.userId.slice(0, 8)}</bdi>}</td>
                        <td>
                          {job.storyTitle ?? job.storyId} · {t("reminders.sequence", { n: job.sequence })}
                        </td>
                        <td>
                          {t(`reminders.statuses.${job.status}`)}
                          {job.channel &&
                            ` · ${t(`outbox.channels.${job.channel}` as "outbox.channels.sms", { defaultValue: job.channel })}`}
                          {job.lastError && <span className="admin-error"> {job.lastError}</span>}
                        </td>
                        <td>{formatDateTime(job.status === "due" ? job.nextTryAt : job.dueAt, i18n.language)}</td>
                        <td>{job.sentAt ? formatDateTime(job.sentAt, i18n.language) : "—"}</td>
                        <td className="ltr">{job.attempts}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <div className="admin-pager">
                <button
                  type="button"
                  className="admin-button admin-button--small"
                  disabled={cursors.length < 2}
                  onClick={() => setCursors(cursors.slice(0, -1))}
                >
                  {t("common.previous")}
                </button>
                <button
                  type="button"
                  className="admin-button admin-button--small"
                  disabled={!page.nextBefore}
                  onClick={() => setCursors([...cursors, page.nextBefore])}
                >
                  {t("common.next")}
                </button>
              </div>
            </>
          )
        }
      </QueryView>
    </section>
  );
}

/**
 * A message's links kept left-to-right inside an Arabic sentence: bare, the bidirectional algorithm moves an
 * address's "=token" ending to the front of it.
 */
function WithLinksIsolated({ text }: { text: string }) {
  return text.split(/(https?:\/\/\S+)/).map((part, i) =>
    i % 2 === 1 ? (
      // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed text, never reordered
      <bdi key={i} dir="ltr">
        {part}
      </bdi>
    ) : (
      part
    ),
  );
}
