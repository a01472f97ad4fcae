import { AuthCore } from "./auth-core.ts";
import { AuthError } from "./auth-errors.ts";
import { verifyPassword } from "./secrets.ts";
import { parseJson } from "./user-view.ts";

/** ADMIN_EMAIL / ADMIN_PASSWORD at start-up. */
export class AdminBootstrap extends AuthCore {
  /** ADMIN_EMAIL / ADMIN_PASSWORD: create or update that admin. Idempotent; safe when two replicas start together. */
  async ensureAdmin(admin: { email: string; password: string }) {
    const email = admin.email.trim().toLowerCase();
    for (let attempt = 0; attempt < 3; attempt++) {
      const user = await this.repo.findUserByEmail(email);
      if (!user) {
        try {
          await this.createUser({ email, password: admin.password, appMetadata: { role: "admin" } });
          await this.audit(null, "admin_bootstrap_created", null, { email });
          return;
        } catch (error) {
          if (error instanceof AuthError && error.errorCode === "user_already_exists") continue; // the other replica won
          throw error;
        }
      }
      const app = parseJson(user.app_metadata);
      const patch: Record<string, unknown> = {};
      if (app.role !== "admin") patch.app_metadata = JSON.stringify({ ...app, role: "admin" });
      if (!(await verifyPassword(admin.password, user.encrypted_password)))
        patch.encrypted_password = await this.hashPassword(admin.password);
      if (!user.email_confirmed_at) patch.email_confirmed_at = new Date().toISOString();
      if (Object.keys(patch).length) {
        await this.repo.updateUser(user.id, { ...patch, updated_at: new Date().toISOString() });
        await this.audit(user.id, "admin_bootstrap_updated", null, { fields: Object.keys(patch) });
      }
      return;
    }
  }
}
