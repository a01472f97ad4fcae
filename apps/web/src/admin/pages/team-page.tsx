import type { TeamMember } from "@hikaya/contracts";
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { CountrySelect } from "../../components/country-select.tsx";
import { errorText } from "../../lib/errors.ts";
import { formatDateTime } from "../../lib/format.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { useAdminSession } from "../admin-session.ts";
import { adminQueries, useTeamMutations } from "../api.ts";
import { ConfirmDialog } from "../components/confirm-dialog.tsx";
import { DisplayNameForm } from "../components/display-name-form.tsx";
import { contactForServer } from "../components/operator-contact.ts";
import { PageHeader, QueryView } from "../components/page.tsx";
import { ltrIsolate } from "../components/phone-number.tsx";
import { formatPhone } from "../phone.ts";

type Role = TeamMember["role"];

/**
 * The console's operators: invite one by e-mail or phone (a local number with the country beside it) with a role,
 * change a role, remove one. "Invited" shows until the person has chosen a password on the join page.
 */
export function TeamPage() {
  const { t, i18n } = useTranslation("admin");
  const session = useAdminSession();
  const me = session.status === "admin" ? session.userId : null;
  const query = useQuery(adminQueries.team());
  const { invite, setRole, remove } = useTeamMutations();
  const [removing, setRemoving] = useState<TeamMember | null>(null);
  // A role change signs the person out at once, so it is asked first rather than done by the dropdown alone.
  const [changing, setChanging] = useState<{ member: TeamMember; role: Role } | null>(null);
  return (
    <>
      <PageHeader title={t("team.title")} subtitle={t("team.intro")} />
      {me && (
        <DisplayNameForm className="admin-card admin-toolbar" current={query.data?.find((m) => m.id === me)?.name ?? null} />
      )}
      <InviteForm onInvite={(input) => invite.mutateAsync(input)} />
      <QueryView query={query}>
        {(members) => (
          <div className="admin-table-wrap">
            <table className="admin-table admin-team">
              <thead>
                <tr>
                  <th>{t("team.person")}</th>
                  <th>{t("team.role")}</th>
                  <th>{t("team.lastSignIn")}</th>
                  <th>
                    <span className="visually-hidden">{t("team.actions")}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {members.map((m) => (
                  <tr key={m.id} data-testid="team-member">
                    <td className="admin-team__person">
                      {m.name && <div>{m.name}</div>}
                      <bdi className="ltr">{m.email ?? formatPhone(m.phone)}</bdi>
                      {!m.confirmed && <span className="admin-badge">{t("team.invited")}</span>}
                    </td>
                    <td className="admin-team__role">
                      {m.id === me ? (
                        t(`team.roles.${m.role}`)
                      ) : (
                        <select
                          className="admin-input"
                          aria-label={t("team.roleOf", { who: m.email ?? m.phone ?? "" })}
                          value={m.role}
                          disabled={setRole.isPending}
                          onChange={(e) => setChanging({ member: m, role: e.target.value as Role })}
                        >
                          <option value="admin">{t("team.roles.admin")}</option>
                          <option value="facilitator">{t("team.roles.facilitator")}</option>
                        </select>
                      )}
                    </td>
                    <td className="admin-team__seen">
                      {/* On a phone the rows are cards without the header row, so the date says what it is. */}
                      <span className="admin-team__label">{t("team.lastSignInLabel")} </span>
                      {m.lastSignInAt ? formatDateTime(m.lastSignInAt, i18n.language) : "—"}
                    </td>
                    <td className="admin-team__actions">
                      {m.id !== me && (
                        <button type="button" className="admin-button admin-button--danger" onClick={() => setRemoving(m)}>
                          {t("team.remove")}
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {setRole.error && <p role="alert">{errorText(setRole.error)}</p>}
          </div>
        )}
      </QueryView>
      <ConfirmDialog
        open={changing !== null}
        title={t("team.changeRoleTitle", {
          who: ltrIsolate(changing?.member.email ?? formatPhone(changing?.member.phone) ?? ""),
          role: changing ? t(`team.roles.${changing.role}`) : "",
        })}
        body={t("team.changeRoleBody")}
        confirmLabel={t("team.changeRole")}
        busy={setRole.isPending}
        onConfirm={async () => {
          if (changing) await setRole.mutateAsync({ id: changing.member.id, role: changing.role }).catch(() => undefined);
          setChanging(null);
        }}
        onCancel={() => setChanging(null)}
      />
      <ConfirmDialog
        open={removing !== null}
        title={t("team.removeTitle")}
        body={t("team.removeBody", { who: ltrIsolate(removing?.email ?? formatPhone(removing?.phone) ?? "") })}
        confirmLabel={t("team.remove")}
        danger
        busy={remove.isPending}
        onConfirm={async () => {
          if (removing) await remove.mutateAsync(removing.id);
          setRemoving(null);
        }}
        onCancel={() => setRemoving(null)}
      />
    </>
  );
}

function InviteForm({
  onInvite,
}: {
  onInvite: (input: { email?: string; phone?: string; country?: string; role: Role }) => Promise<unknown>;
}) {
  const { t } = useTranslation("admin");
  const id = useId();
  const [country, setCountry] = useState<string | null>(null);
  const [contact, setContact] = useState("");
  const [role, setRole] = useState<Role>("facilitator");
  const [state, setState] = useState<{ busy: boolean; error: string | null; sent: string | null }>({
    busy: false,
    error: null,
    sent: null,
  });
  async function submit(event: FormEvent) {
    event.preventDefault();
    const value = contact.trim();
    if (!value) return;
    setState({ busy: true, error: null, sent: null });
    try {
      await onInvite({ ...contactForServer(value, country), role });
      setContact("");
      setState({ busy: false, error: null, sent: value });
    } catch (error) {
      setState({ busy: false, error: errorText(error), sent: null });
    }
  }
  return (
    <form className="admin-card admin-toolbar" onSubmit={submit}>
      <CountrySelect label={t("login.country")} value={country} onChange={setCountry} />
      <label htmlFor={`${id}-contact`}>{t("team.contact")}</label>
      <input
        id={`${id}-contact`}
        className="admin-input ltr"
        value={contact}
        onChange={(e) => setContact(e.target.value)}
        placeholder="name@example.org / 0791234567"
        required
      />
      <label htmlFor={`${id}-role`}>{t("team.role")}</label>
      <select id={`${id}-role`} className="admin-input" value={role} onChange={(e) => setRole(e.target.value as Role)}>
        <option value="facilitator">{t("team.roles.facilitator")}</option>
        <option value="admin">{t("team.roles.admin")}</option>
      </select>
      <button type="submit" className="admin-button admin-button--primary" disabled={state.busy}>
        {t("team.invite")}
      </button>
      {state.error && <p role="alert">{state.error}</p>}
      {state.sent && <p role="status">{t("team.invited_to", { who: ltrIsolate(state.sent) })}</p>}
    </form>
  );
}
