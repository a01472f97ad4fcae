import { z } from "zod";

/** GET /api/settings: public site settings plus what the browser needs to start its auth client. */
export const publicSettingsSchema = z.object({
  title: z.object({ en: z.string(), ar: z.string() }),
  primaryColor: z.string(),
  siteUnderMaintenance: z.boolean(),
  anonKey: z.string(),
  usernameEmailDomain: z.string(),
});
export type PublicSettings = z.infer<typeof publicSettingsSchema>;

export const healthSchema = z.object({ status: z.enum(["ok", "degraded"]), database: z.enum(["ok", "down"]) });
export type Health = z.infer<typeof healthSchema>;
