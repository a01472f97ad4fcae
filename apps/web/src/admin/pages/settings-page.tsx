import { type AdminSettings, VIDEO_ORIGINS_MAX, videoOriginSchema } from "@hikaya/contracts";
import { useQuery } from "@tanstack/react-query";
import { type CSSProperties, type FormEvent, useId, useState } from "react";
import { SubmitButton } from "../../components/submit-button.tsx";
import { errorText } from "../../lib/errors.ts";
import { formatDateTime } from "../../lib/format.ts";
import { currentLanguage, useTranslation } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";
import { adminQueries, useSaveSettings } from "../api.ts";
import { AdminField } from "../components/admin-field.tsx";
import { ConfirmDialog } from "../components/confirm-dialog.tsx";
import { PageHeader, QueryView } from "../components/page.tsx";
import { StaleNotice, staleCurrent } from "../components/stale-notice.tsx";
import { ServiceRoleKeyCard } from "./service-role-key.tsx";

const HEX = /^#[0-9a-fA-F]{6}$/;

/** The origins typed one per line, or the first line that is not an https origin. */
function parseOrigins(text: string): { origins: string[] } | { bad: string } {
  const origins: string[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const parsed = videoOriginSchema.safeParse(line);
    if (!parsed.success) return { bad: line.trim() };
    if (!origins.includes(parsed.data)) origins.push(parsed.data);
  }
  return { origins };
}

/** Title in both languages, primary colour with a live preview, and maintenance mode. */
export function SettingsPage() {
  const { t } = useTranslation("admin");
  const query = useQuery(adminQueries.settings());
  return (
    <>
      <PageHeader title={t("settings.title")} subtitle={t("settings.intro")} />
      <QueryView query={query}>{(settings) => <SettingsForm key={settings.updatedAt ?? "none"} settings={settings} />}</QueryView>
    </>
  );
}

function SettingsForm({ settings }: { settings: AdminSettings }) {
  const { t, i18n } = useTranslation("admin");
  const save = useSaveSettings();
  const id = useId();
  const [titleEn, setTitleEn] = useState(settings.titleEn);
  const [titleAr, setTitleAr] = useState(settings.titleAr);
  const [color, setColor] = useState(settings.primaryColor);
  const [originsText, setOriginsText] = useState(settings.videoOrigins.join("\n"));
  const [confirm, setConfirm] = useState<null | boolean>(null);
  const [stale, setStale] = useState<AdminSettings | null>(null);
  const validColor = HEX.test(color);

  async function persist(maintenance: boolean, message: string) {
    const listed = parseOrigins(originsText);
    try {
      await save.mutateAsync({
        titleEn,
        titleAr,
        primaryColor: validColor ? color : settings.primaryColor,
        siteUnderMaintenance: maintenance,
        // A maintenance switch with a line still being typed keeps the saved list.
        ...("origins" in listed ? { videoOrigins: listed.origins } : {}),
        version: settings.version,
      });
      toast.success(message);
    } catch (error) {
      const current = staleCurrent<AdminSettings>(error);
      if (current) return setStale(current);
      toast.error(errorText(error));
    }
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!validColor) {
      toast.error(t("settings.badColor"));
      return;
    }
    const listed = parseOrigins(originsText);
    if ("bad" in listed) {
      toast.error(t("settings.badVideoOrigin", { origin: listed.bad }));
      return;
    }
    if (listed.origins.length > VIDEO_ORIGINS_MAX) {
      toast.error(t("settings.tooManyVideoOrigins", { max: VIDEO_ORIGINS_MAX }));
      return;
    }
    await persist(settings.siteUnderMaintenance, t("settings.saved"));
  }

  return (
    <>
      {stale && (
        <StaleNotice
          queryKey={["admin", "settings"]}
          rows={[
            { label: t("settings.titleEn"), value: stale.titleEn },
            { label: t("settings.titleAr"), value: stale.titleAr },
            { label: t("settings.color"), value: stale.primaryColor },
            {
              label: t("settings.maintenanceTitle"),
              value: stale.siteUnderMaintenance ? t("settings.maintenanceOn") : t("settings.maintenanceOff"),
            },
            { label: t("settings.videoOrigins"), value: stale.videoOrigins.join(", ") || t("settings.videoOriginsNone") },
          ]}
        />
      )}
      <section
        className={`admin-card admin-maintenance${settings.siteUnderMaintenance ? " is-on" : ""}`}
        aria-labelledby="maint-title"
      >
        <div>
          <h2 id="maint-title">{t("settings.maintenanceTitle")}</h2>
          <p role="status">{settings.siteUnderMaintenance ? t("settings.maintenanceOn") : t("settings.maintenanceOff")}</p>
        </div>
        <button
          type="button"
          role="switch"
          aria-checked={settings.siteUnderMaintenance}
          aria-label={t("settings.maintenanceSwitch")}
          className="admin-switch"
          disabled={save.isPending}
          onClick={() => setConfirm(!settings.siteUnderMaintenance)}
        >
          <span className="admin-switch__knob" />
        </button>
      </section>
      <div className="admin-settings">
        <form className="admin-card admin-form" onSubmit={submit}>
          <AdminField
            id={`${id}-en`}
            label={t("settings.titleEn")}
            dir="ltr"
            required
            maxLength={80}
            value={titleEn}
            onChange={(e) => setTitleEn(e.target.value)}
          />
          <AdminField
            id={`${id}-ar`}
            label={t("settings.titleAr")}
            dir="rtl"
            required
            maxLength={80}
            value={titleAr}
            onChange={(e) => setTitleAr(e.target.value)}
          />
          <div className="admin-field">
            <label htmlFor={`${id}-hex`}>{t("settings.color")}</label>
            <div className="admin-color">
              <input
                type="color"
                aria-label={t("settings.colorPicker")}
                value={validColor ? color : "#000000"}
                onChange={(e) => setColor(e.target.value)}
              />
              <input
                id={`${id}-hex`}
                className="admin-input ltr"
                value={color}
                aria-invalid={!validColor}
                maxLength={7}
                onChange={(e) => setColor(e.target.value.trim())}
              />
            </div>
          </div>
          <div className="admin-field">
            <label htmlFor={`${id}-origins`}>{t("settings.videoOrigins")}</label>
            <textarea
              id={`${id}-origins`}
              className="admin-input ltr"
              dir="ltr"
              rows={3}
              spellCheck={false}
              placeholder="https://cdn.example.org"
              aria-describedby={`${id}-origins-hint`}
              value={originsText}
              onChange={(e) => setOriginsText(e.target.value)}
            />
            <p id={`${id}-origins-hint`} className="admin-hint">
              {t("settings.videoOriginsHint")}
            </p>
          </div>
          <p className="admin-hint">{t("settings.reach")}</p>
          <div className="admin-actions">
            <SubmitButton busy={save.isPending}>{t("common.save")}</SubmitButton>
          </div>
          <p className="admin-hint">{t("settings.lastChange", { when: formatDateTime(settings.updatedAt, i18n.language) })}</p>
        </form>
        <Preview title={currentLanguage() === "ar" ? titleAr : titleEn} color={validColor ? color : settings.primaryColor} />
      </div>
      <ServiceRoleKeyCard />
      <ConfirmDialog
        open={confirm !== null}
        title={confirm ? t("settings.confirmOnTitle") : t("settings.confirmOffTitle")}
        body={<p>{confirm ? t("settings.confirmOnBody") : t("settings.confirmOffBody")}</p>}
        confirmLabel={confirm ? t("settings.confirmOn") : t("settings.confirmOff")}
        danger={confirm === true}
        busy={save.isPending}
        onCancel={() => setConfirm(null)}
        onConfirm={async () => {
          const on = confirm === true;
          setConfirm(null);
          await persist(on, on ? t("settings.maintenanceNowOn") : t("settings.maintenanceNowOff"));
        }}
      />
    </>
  );
}

/** A phone-sized sketch of the user app in the chosen colour: title bar, an active and a locked story card. */
function Preview({ title, color }: { title: string; color: string }) {
  const { t } = useTranslation("admin");
  return (
    <figure
      className="admin-card admin-phone-preview"
      style={{ "--preview": color } as CSSProperties}
      aria-label={t("settings.preview")}
    >
      <figcaption className="admin-label">{t("settings.preview")}</figcaption>
      <div className="admin-phone">
        <div className="admin-phone__bar">
          <span className="admin-phone__menu" aria-hidden="true">
            ☰
          </span>
          <strong>{title}</strong>
          <span className="admin-phone__close" aria-hidden="true">
            ×
          </span>
        </div>
        <div className="admin-phone__body">
          <div className="admin-phone__heading">{t("settings.previewStories")}</div>
          <div className="admin-phone__card is-active">
            <span className="admin-phone__thumb" />
            <span className="admin-phone__text">
              <strong>{t("settings.previewStory1")}</strong>
              <small>{t("settings.previewSubtitle")}</small>
            </span>
            <span className="admin-phone__play" aria-hidden="true">
              ▶
            </span>
          </div>
          <div className="admin-phone__card is-done">
            <span className="admin-phone__thumb" />
            <span className="admin-phone__text">
              <strong>{t("settings.previewStory2")}</strong>
              <small>{t("settings.previewSubtitle")}</small>
            </span>
            <span className="admin-phone__play" aria-hidden="true">
              ✓
            </span>
          </div>
          <div className="admin-phone__card is-locked">
            <span className="admin-phone__thumb" />
            <span className="admin-phone__text">
              <strong>{t("settings.previewStory3")}</strong>
            </span>
            <span className="admin-phone__play" aria-hidden="true">
              <svg viewBox="0 0 24 24" width="12" height="12" aria-hidden="true">
                <rect x="5" y="11" width="14" height="10" rx="2" fill="currentColor" />
                <path d="M8 11V8a4 4 0 0 1 8 0v3" fill="none" stroke="currentColor" strokeWidth="2.4" />
              </svg>
            </span>
          </div>
          <span className="admin-phone__button">{t("settings.previewButton")}</span>
        </div>
      </div>
    </figure>
  );
}
