import { REMINDER_PLACEHOLDERS, type ReminderPlaceholder } from "@hikaya/contracts";
import { AppError } from "../../errors.ts";

/** The texts an operator starts from; each names the story, links to it and says how to stop. */
export const DEFAULT_TEMPLATES = {
  en: "Hello {name}, your next Hikaya story “{story}” is waiting for you: {link}\nTo stop these reminders: {stopLink}",
  ar: "مرحبًا {name}، قصتك التالية في حكاية «{story}» بانتظارك: {link}\nلإيقاف هذه التذكيرات: {stopLink}",
} as const;

/** What `{name}` becomes for a person without a name, chosen so the default greetings still read well. */
export const NAMELESS = { en: "there", ar: "بك" } as const;

/** Every reminder must open the story and say how to stop. */
const REQUIRED: ReminderPlaceholder[] = ["link", "stopLink"];
const PLACEHOLDER = /\{([^{}]*)\}/g;

/** Throws a field error for an unknown placeholder or a missing required one. */
export function checkTemplate(template: string, field: string): void {
  const found = new Set<string>();
  for (const match of template.matchAll(PLACEHOLDER)) {
    const name = match[1] ?? "";
    if (!(REMINDER_PLACEHOLDERS as readonly string[]).includes(name))
      throw new AppError(
        "validation_failed",
        `Unknown placeholder {${name}} in ${field}; use ${REMINDER_PLACEHOLDERS.map((p) => `{${p}}`).join(", ")}`,
        { field, reason: "unknown_placeholder", placeholder: name },
      );
    found.add(name);
  }
  for (const name of REQUIRED)
    if (!found.has(name))
      throw new AppError("validation_failed", `${field} must contain {${name}}`, {
        field,
        reason: "missing_placeholder",
        placeholder: name,
      });
}

export function renderTemplate(template: string, values: Record<ReminderPlaceholder, string>): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => (name in values ? values[name as ReminderPlaceholder] : whole));
}
