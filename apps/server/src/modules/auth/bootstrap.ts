import { ConfigError } from "../../config.ts";
import { AuthCore } from "./auth-core.ts";
import { AuthError } from "./auth-errors.ts";
import { parseJson } from "./user-view.ts";

/**
 * The app_metadata mark of the account start-up created for ADMIN_EMAIL. Only admins write app_metadata, so a person
 * who registered the address themselves cannot carry it.
 */
export const BOOTSTRAP_MARK = "admin_bootstrap";

/** ADMIN_EMAIL / ADMIN_PASSWORD at start-up. */
export class AdminBootstrap extends AuthCore {
  /**
   * ADMIN_EMAIL / ADMIN_PASSWORD: create that admin, or bring the one start-up created back to the configured password
   * and role. Sign-up needs no mailbox, so an account at that address that start-up did not create may be anyone's:
   * it is made admin only with ADMIN_EMAIL_PROMOTE_EXISTING=true, else start-up stops. A promotion or a new password
   * ends every session the account had (a registrant's kept session must not refresh into an admin token).
   * Idempotent; safe when two replicas start together.
   */
  async ensureAdmin(admin: { email: string; password: string; promoteExisting?: boolean }) {
    const email = admin.email.trim().toLowerCase();
    for (let attempt = 0; attempt < 3; attempt++) {
      const user = await this.repo.findUserByEmail(email);
      if (!user) {
        try {
          await this.createUser({ email, password: admin.password, appMetadata: { role: "admin", [BOOTSTRAP_MARK]: true } });
          await this.audit(null, "admin_bootstrap_created", null, { email });
          return;
        } catch (error) {
          if (error instanceof AuthError && error.errorCode === "user_already_exists") continue; // the other replica won
          throw error;
        }
      }
      const app = parseJson(user.app_metadata);
      const promotes = app.role !== "admin";
      // An account already admin gains nothing by being adopted (admins made before the mark existed among them).
      if (promotes && app[BOOTSTRAP_MARK] !== true && !admin.promoteExisting)
        throw new ConfigError(
          `ADMIN_EMAIL names an existing account (${email}) that start-up did not create; make it an admin (its sessions end) with ADMIN_EMAIL_PROMOTE_EXISTING=true, or choose another address`,
        );
      const patch: Record<string, unknown> = {};
      if (promotes || app[BOOTSTRAP_MARK] !== true)
        patch.app_metadata = JSON.stringify({ ...app, role: "admin", [BOOTSTRAP_MARK]: true });
      const newPassword = !(await this.hasher.verify(admin.password, user.encrypted_password));
      if (newPassword) patch.encrypted_password = await this.hashPassword(admin.password);
      if (!user.email_confirmed_at) patch.email_confirmed_at = new Date().toISOString();
      if (Object.keys(patch).length) {
        await this.repo.transaction(async (repo) => {
          await repo.updateUser(user.id, { ...patch, updated_at: new Date().toISOString() });
          if (promotes || newPassword) await repo.deleteSessionsOf(user.id);
        });
        await this.audit(user.id, "admin_bootstrap_updated", null, { fields: Object.keys(patch), promoted: promotes });
      }
      return;
    }
  }
}
