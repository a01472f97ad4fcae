import type { AdminRecording } from "@hikaya/contracts";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { errorText } from "../../lib/errors.ts";
import { formatDateTime } from "../../lib/format.ts";
import { currentLanguage, useTranslation } from "../../lib/i18n.ts";
import { Link, useParams } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { useAdminSession } from "../admin-session.ts";
import { adminQueries, fetchPrivateAudio } from "../api.ts";
import { PageHeader, QueryView } from "../components/page.tsx";
import { phoneOf } from "../phone.ts";
import { PersonActions } from "./person-actions.tsx";

/** One person: profile, progress through the program and their recordings (private; fetched with the admin's token). */
export function UserDetailPage() {
  const { id = "" } = useParams();
  const { t, i18n } = useTranslation("admin");
  const summary = useQuery(adminQueries.user(id));
  const detail = useQuery(adminQueries.userDetail(id));
  const ar = currentLanguage() === "ar";
  const session = useAdminSession();
  // The keepsake's API is admins' only: a facilitator is not offered a page that would refuse them.
  const isAdmin = session.status === "admin" && session.role === "admin";
  return (
    <>
      <Link to="/admin/users" className="admin-back">
        <span className="icon-directional" aria-hidden="true">
          ←
        </span>{" "}
        {t("users.back")}
      </Link>
      <QueryView query={summary}>
        {(user) => (
          <>
            <PageHeader
              title={user.name || phoneOf(user) || user.email || t("users.unnamed")}
              subtitle={<bdi className="ltr">{user.id}</bdi>}
              actions={
                isAdmin ? (
                  <Link className="admin-button" to={`/admin/users/${user.id}/keepsake`}>
                    {t("keepsake.open")}
                  </Link>
                ) : undefined
              }
            />
            <QueryView query={detail}>
              {(d) => (
                <PersonActions id={user.id} who={user.name || phoneOf(user) || user.email || user.id} account={d.account} />
              )}
            </QueryView>
            <section className="admin-card admin-section">
              <h2>{t("users.profile")}</h2>
              <QueryView query={detail}>
                {(d) => (
                  <dl className="admin-dl">
                    <dt>{t("users.phone")}</dt>
                    <dd>
                      <bdi className="ltr">{phoneOf(user) ?? "—"}</bdi>
                    </dd>
                    <dt>{t("users.email")}</dt>
                    <dd>
                      <bdi className="ltr">{user.email ?? "—"}</bdi>
                    </dd>
                    <dt>{t("users.city")}</dt>
                    <dd>{d.profile.city ?? "—"}</dd>
                    <dt>{t("users.gender")}</dt>
                    <dd>{d.profile.gender ? t(`users.genders.${d.profile.gender}`, { defaultValue: d.profile.gender }) : "—"}</dd>
                    <dt>{t("users.ageGroup")}</dt>
                    <dd>{d.profile.ageGroup ?? "—"}</dd>
                    <dt>{t("users.fromLanding")}</dt>
                    <dd>{d.profile.fromLandingPage ? t("common.yes") : t("common.no")}</dd>
                    <dt>{t("users.reminders")}</dt>
                    <dd>
                      {d.profile.agreeToReminder ? t("common.yes") : t("common.no")}
                      {d.profile.agreeToReminderAt && (
                        <span className="admin-muted"> · {formatDateTime(d.profile.agreeToReminderAt, i18n.language)}</span>
                      )}
                      {d.profile.remindersStoppedVia && (
                        <span className="admin-muted"> · {t(`users.stoppedVia.${d.profile.remindersStoppedVia}`)}</span>
                      )}
                    </dd>
                    <dt>{t("users.whatsapp")}</dt>
                    <dd>
                      {d.profile.whatsappOptIn === null
                        ? t("users.notAnswered")
                        : d.profile.whatsappOptIn
                          ? t("common.yes")
                          : t("common.no")}
                      {d.profile.whatsappOptInAt && (
                        <span className="admin-muted"> · {formatDateTime(d.profile.whatsappOptInAt, i18n.language)}</span>
                      )}
                    </dd>
                    <dt>{t("users.language")}</dt>
                    <dd>{d.profile.language ? t(`users.languages.${d.profile.language}`) : "—"}</dd>
                    <dt>{t("users.joined")}</dt>
                    <dd>{formatDateTime(user.createdAt, i18n.language)}</dd>
                    <dt>{t("users.lastSignIn")}</dt>
                    <dd>{formatDateTime(user.lastSignInAt, i18n.language)}</dd>
                  </dl>
                )}
              </QueryView>
            </section>
            <section className="admin-card admin-section">
              <h2>{t("users.progressTitle", { count: user.lastWatchedStoryId })}</h2>
              <QueryView query={detail}>
                {(d) =>
                  d.progress.length === 0 ? (
                    <p className="admin-muted">{t("users.noProgress")}</p>
                  ) : (
                    <ol className="admin-progress">
                      {d.progress.map((p) => (
                        <li key={p.storyId}>
                          <span className="admin-order ltr">{p.order}</span>
                          <span>{ar ? p.titleAr : p.titleEn}</span>
                          <span className="admin-muted">{formatDateTime(p.watchedAt, i18n.language)}</span>
                        </li>
                      ))}
                    </ol>
                  )
                }
              </QueryView>
            </section>
            <section className="admin-card admin-section">
              <h2>{t("users.recordings")}</h2>
              <QueryView query={detail}>
                {(d) =>
                  d.recordings.length === 0 ? (
                    <p className="admin-muted">{t("users.noRecordings")}</p>
                  ) : (
                    <ul className="admin-answers">
                      {d.recordings.map((r) => (
                        <Recording key={r.id} recording={r} />
                      ))}
                    </ul>
                  )
                }
              </QueryView>
            </section>
          </>
        )}
      </QueryView>
    </>
  );
}

function Recording({ recording }: { recording: AdminRecording }) {
  const { t, i18n } = useTranslation("admin");
  const [src, setSrc] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  useEffect(() => () => void (src && URL.revokeObjectURL(src)), [src]);
  const story =
    recording.storyOrder === null
      ? t("users.deletedStory")
      : `#${recording.storyOrder} ${currentLanguage() === "ar" ? recording.storyTitleAr : recording.storyTitleEn}`;
  return (
    <li className="admin-answer" data-testid="recording">
      <span>
        <strong>{story}</strong>
        {recording.questionIndex !== null && (
          <span className="admin-muted"> · {t("users.question", { n: recording.questionIndex })}</span>
        )}
        <br />
        <span className="admin-muted">{formatDateTime(recording.createdAt, i18n.language)}</span>
      </span>
      {src ? (
        <audio src={src} controls autoPlay aria-label={story} />
      ) : (
        <button
          type="button"
          className="admin-button admin-button--small"
          disabled={loading}
          onClick={async () => {
            setLoading(true);
            try {
              setSrc(await fetchPrivateAudio(recording.audioUrl));
            } catch (error) {
              toast.error(errorText(error));
            } finally {
              setLoading(false);
            }
          }}
        >
          {t("users.play")}
        </button>
      )}
    </li>
  );
}
