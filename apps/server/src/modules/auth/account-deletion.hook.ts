import type { RequestMeta } from "./auth-core.ts";

/** Who deletes through `DELETE /auth/v1/admin/users/{id}`: an admin person, or a service key's role. */
export interface DeletingAdmin {
  id: string;
  email: string | null;
}

export type AccountDeletion = (userId: string, meta: RequestMeta, by: DeletingAdmin) => Promise<unknown>;

/**
 * How `/auth/v1`'s admin API deletes an account. Deleting one takes more than auth's rows (share links, recordings'
 * and voice notes' files, the audit trail: modules/account's deletion), and auth sits below every module, so it
 * cannot import that deletion: app.ts registers it here once at start-up, and the arrow points from account to auth.
 */
export class AccountDeletionHook {
  #deletion: AccountDeletion | undefined;

  register(deletion: AccountDeletion): void {
    if (this.#deletion) throw new Error("an account deletion is already registered");
    this.#deletion = deletion;
  }

  run(userId: string, meta: RequestMeta, by: DeletingAdmin): Promise<unknown> {
    // Deleting only auth's rows would leave the person's files behind: no registration is a wiring bug, not a choice.
    if (!this.#deletion) throw new Error("no account deletion registered (app.ts registers modules/account's)");
    return this.#deletion(userId, meta, by);
  }
}
