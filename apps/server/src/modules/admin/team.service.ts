import type { OperatorRole, TeamInvite, TeamMember } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { badRequest, notFound } from "../../errors.ts";
import { type Actor, audit } from "../audit/audit.service.ts";
import type { RequestMeta } from "../auth/auth.service.ts";
import * as repo from "./team.repository.ts";

type InviteMeta = RequestMeta & { origin: string };

const parse = (raw: string): Record<string, unknown> => {
  try {
    const value = JSON.parse(raw) as unknown;
    return value && typeof value === "object" ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

const roleOf = (appMetadata: string): OperatorRole | null => {
  const role = parse(appMetadata).role;
  return role === "admin" || role === "facilitator" ? role : null;
};

export async function listTeam(deps: AppDeps): Promise<TeamMember[]> {
  const rows = await repo.listOperatorRows(deps.db);
  return rows.flatMap((row) => {
    const role = roleOf(row.app_metadata);
    if (!role) return [];
    const meta = parse(row.user_metadata);
    // The name they chose for the console (Team page), else the profile's, else a name given at sign-up.
    const chosen = typeof meta.display_name === "string" && meta.display_name.trim() ? meta.display_name.trim() : null;
    const signedUpAs = typeof meta.name === "string" ? meta.name : null;
    return [
      {
        id: row.id,
        email: row.email,
        phone: row.phone,
        name: chosen ?? row.name ?? signedUpAs,
        role,
        // Joined, not merely invited: a confirmed address and a password to sign in to the console with.
        confirmed: Boolean(row.email_confirmed_at ?? row.phone_confirmed_at) && Boolean(row.has_password),
        lastSignInAt: row.last_sign_in_at,
      },
    ];
  });
}

/**
 * Who an audit entry is about, as they were then (their name and e-mail or phone): the log reads "removed Huda
 * (huda@example.org)" and still does after the account changes or goes.
 */
const described = (m: TeamMember): string => {
  const contact = m.email ?? m.phone ?? m.id;
  return m.name ? `${m.name} (${contact})` : contact;
};

async function memberOf(deps: AppDeps, id: string): Promise<TeamMember> {
  const member = (await listTeam(deps)).find((m) => m.id === id);
  if (!member) throw notFound("This person is not in the team");
  return member;
}

/**
 * The auth module invites (operator-access.service.ts): a new person gets a code and a link to the console's join
 * page; a family account keeps its password and gains the role, and is told so. Either way through the message
 * provider, by e-mail or phone as given.
 */
export async function inviteOperator(deps: AppDeps, actor: Actor, input: TeamInvite, meta: InviteMeta): Promise<TeamMember> {
  const user = await deps.auth.service.inviteOperator(input, meta);
  const member = await memberOf(deps, user.id);
  await audit(
    deps.db,
    actor,
    "team.invite",
    { type: "user", id: user.id },
    { role: input.role, via: input.email ? "email" : "phone", member: described(member) },
  );
  return member;
}

async function ensureOtherOperator(deps: AppDeps, actor: Actor, id: string) {
  // An admin changing their own role could leave the console with nobody able to manage it.
  if (id === actor.id) throw badRequest("You cannot change your own role");
  const row = await repo.findUserMetadata(deps.db, id);
  if (!row || !roleOf(row.app_metadata)) throw notFound("This person is not in the team");
  return roleOf(row.app_metadata);
}

/** A new role is carried by new tokens only: the auth module ends the person's sessions and they sign in again. */
export async function changeRole(deps: AppDeps, actor: Actor, id: string, role: OperatorRole, meta: RequestMeta) {
  const before = await ensureOtherOperator(deps, actor, id);
  await deps.auth.service.adminUpdateUser(id, { app_metadata: { role } }, meta);
  const member = await memberOf(deps, id);
  await audit(deps.db, actor, "team.role", { type: "user", id }, { from: before, to: role, member: described(member) });
  return member;
}

/** The account stays (it may be a family member's too); the console role goes and (auth's rule) every session ends. */
export async function removeOperator(deps: AppDeps, actor: Actor, id: string, meta: RequestMeta) {
  const before = await ensureOtherOperator(deps, actor, id);
  const member = await memberOf(deps, id);
  await deps.auth.service.adminUpdateUser(id, { app_metadata: { role: null } }, meta);
  await audit(deps.db, actor, "team.remove", { type: "user", id }, { role: before, member: described(member) });
}
