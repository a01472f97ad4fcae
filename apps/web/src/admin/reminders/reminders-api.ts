/** The console's calls to /api/admin/reminders (settings, preview, send now, queue). */
import type {
  ReminderJobStatus,
  ReminderQueuePage,
  ReminderRunResult,
  ReminderSettings,
  ReminderSettingsInput,
} from "@hikaya/contracts";
import { queryOptions } from "@tanstack/react-query";
import { consoleApi } from "../api.ts";

export const reminderQueries = {
  settings: () =>
    queryOptions({
      queryKey: ["admin", "reminders", "settings"],
      queryFn: () => consoleApi<ReminderSettings>("/admin/reminders/settings"),
    }),
  queue: (status: ReminderJobStatus | "all", before: string | null) =>
    queryOptions({
      queryKey: ["admin", "reminders", "queue", status, before],
      queryFn: () => {
        const params = new URLSearchParams({ limit: "25" });
        if (status !== "all") params.set("status", status);
        if (before) params.set("before", before);
        return consoleApi<ReminderQueuePage>(`/admin/reminders/queue?${params}`);
      },
    }),
};

export const saveReminderSettings = (body: ReminderSettingsInput) =>
  consoleApi<ReminderSettings>("/admin/reminders/settings", { method: "PUT", body });

export const previewReminder = (language: "en" | "ar", template: string) =>
  consoleApi<{ text: string }>("/admin/reminders/preview", { body: { language, template } });

export const runDueReminders = () => consoleApi<ReminderRunResult>("/admin/reminders/run", { method: "POST", body: {} });
