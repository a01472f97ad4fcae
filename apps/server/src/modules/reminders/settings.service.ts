import type { ReminderSettings, ReminderSettingsInput } from "@hikaya/contracts";
import { REMINDER_PLACEHOLDERS } from "@hikaya/contracts";
import type { DB } from "../../db/database.ts";
import { StaleSave, savedOrStale } from "../../db/versions.ts";
import { AppError } from "../../errors.ts";
import { type Actor, audit } from "../audit/audit.service.ts";
import * as repo from "./reminders.repository.ts";
import { checkTemplate, DEFAULT_TEMPLATES, NAMELESS, renderTemplate } from "./templates.ts";

/** The rules until an operator saves their own: the 3 days, then 7, at most twice, 09:00–20:00. */
export const DEFAULT_SETTINGS = {
  enabled: true,
  firstAfterHours: 72,
  repeatAfterHours: 168,
  maxPerStory: 2,
  windowStart: "09:00",
  windowEnd: "20:00",
} as const;

export async function getSettings(db: DB): Promise<ReminderSettings> {
  return settingsOf(await repo.findSettings(db));
}

function settingsOf(row: repo.ReminderSettingsRow | undefined): ReminderSettings {
  if (!row)
    return {
      ...DEFAULT_SETTINGS,
      templates: { ...DEFAULT_TEMPLATES },
      placeholders: [...REMINDER_PLACEHOLDERS],
      updatedAt: null,
      version: 0,
    };
  return {
    enabled: row.enabled === 1,
    firstAfterHours: row.first_after_hours,
    repeatAfterHours: row.repeat_after_hours,
    maxPerStory: row.max_per_story,
    windowStart: row.window_start,
    windowEnd: row.window_end,
    templates: { en: row.template_en, ar: row.template_ar },
    placeholders: [...REMINDER_PLACEHOLDERS],
    updatedAt: row.updated_at,
    version: Number(row.version ?? 0),
  };
}

export async function saveSettings(
  db: DB,
  actor: Actor,
  input: ReminderSettingsInput,
  now = new Date(),
): Promise<ReminderSettings> {
  const current = await getSettings(db);
  const templates = input.templates ?? current.templates;
  checkTemplate(templates.en, "templates.en");
  checkTemplate(templates.ar, "templates.ar");
  const save = () =>
    db.transaction().execute(async (trx) => {
      const saved = await repo.saveSettings(
        trx,
        {
          enabled: input.enabled ? 1 : 0,
          first_after_hours: input.firstAfterHours,
          repeat_after_hours: input.repeatAfterHours,
          max_per_story: input.maxPerStory,
          window_start: input.windowStart,
          window_end: input.windowEnd,
          template_en: templates.en,
          template_ar: templates.ar,
          updated_at: now.toISOString(),
        },
        input.version,
      );
      if (!saved) throw new StaleSave();
      // What this statement wrote, version included: re-read after the commit, it could be a later save's.
      const written = settingsOf(saved);
      const { templates: _t, version: _v, ...rules } = input;
      await audit(
        trx,
        actor,
        "reminders.settings",
        { type: "reminders" },
        { ...rules, templatesChanged: input.templates !== undefined },
      );
      return written;
    });
  // A console tab opened before another operator's save would otherwise put the old rules back without a word.
  return savedOrStale(save, () => getSettings(db));
}

/** A template filled with sample values, so an operator sees the text before saving it. */
export async function previewTemplate(
  db: DB,
  publicUrl: string,
  language: "en" | "ar",
  template: string | undefined,
): Promise<string> {
  const text = template ?? (await getSettings(db)).templates[language];
  if (!text.trim()) throw new AppError("validation_failed", "The template is empty", { field: "template", reason: "required" });
  checkTemplate(text, "template");
  const sample = { en: { name: "Layla", story: "The Olive Tree" }, ar: { name: "ليلى", story: "شجرة الزيتون" } }[language];
  return renderTemplate(text, {
    name: sample.name ?? NAMELESS[language],
    story: sample.story,
    link: `${publicUrl}/story/1`,
    stopLink: `${publicUrl}/api/reminders/stop?token=…`,
  });
}
