import type { AuditEntry } from "@hikaya/contracts";
import { describe, expect, it } from "vitest";
import arAdmin from "../locales/ar/admin.json";
import enAdmin from "../locales/en/admin.json";
import { auditSentence, type Translate } from "./audit-sentence.ts";

/** The console's strings with i18next's {{name}} interpolation, plurals (_one/_other) and defaultValue. */
function translator(strings: unknown, language: string): Translate {
  // Keys may hold dots themselves ("audit.sentences.story.update"): try each split.
  const find = (node: unknown, key: string): string | undefined => {
    if (!node || typeof node !== "object") return undefined;
    const record = node as Record<string, unknown>;
    if (typeof record[key] === "string") return record[key] as string;
    for (let i = key.indexOf("."); i !== -1; i = key.indexOf(".", i + 1)) {
      const found = find(record[key.slice(0, i)], key.slice(i + 1));
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const lookup = (key: string) => find(strings, key);
  const t: Translate = (key, vars = {}) => {
    const plural =
      typeof vars.count === "number" ? lookup(`${key}_${new Intl.PluralRules(language).select(vars.count)}`) : undefined;
    const text = plural ?? lookup(key) ?? (vars.defaultValue as string | undefined) ?? key;
    return text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(vars[name]));
  };
  return t;
}

const entry = (over: Partial<AuditEntry>): AuditEntry => ({
  id: 1,
  actorId: "u1",
  actorEmail: "amal@hikaya.test",
  actorName: "Amal",
  action: "story.update",
  targetType: "story",
  targetId: "s1",
  targetNameEn: "The Well",
  targetNameAr: "البئر",
  details: {},
  createdAt: "2026-01-01T00:00:00Z",
  ...over,
});

describe("audit entries as sentences", () => {
  const en = translator(enAdmin, "en");
  const ar = translator(arAdmin, "ar");

  it("says who changed which fields of which story, in the operator's language", () => {
    const e = entry({ details: { titleEn: { from: "Well", to: "The Well" } } });
    expect(auditSentence(e, "en", en)).toBe("Amal changed the English title of the story “The Well”");
    expect(auditSentence(e, "ar", ar)).toBe("Amal: تغيير العنوان الإنجليزي في القصة «البئر»");
    const two = entry({ details: { titleEn: { from: "a", to: "b" }, videoUrl: { from: "x", to: "y" } } });
    expect(auditSentence(two, "en", en)).toBe("Amal changed the English title and the video of the story “The Well”");
  });

  it("names a deleted target by what the entry recorded, and lists moves", () => {
    const gone = entry({
      action: "character.delete",
      targetNameEn: null,
      targetNameAr: null,
      details: { nameEn: "Huda", nameAr: "هدى" },
    });
    expect(auditSentence(gone, "ar", ar)).toBe("Amal: حذف فرد العائلة «هدى»");
    const moved = entry({
      action: "landing_answer.reorder",
      targetId: null,
      details: { moved: [{ nameEn: "Huda", nameAr: "هدى", from: 3, to: 1 }] },
    });
    expect(auditSentence(moved, "en", en)).toBe("Amal reordered the landing answers: “Huda” from 3 to 1");
  });

  it("names the team member a team entry is about, and reads older entries without the name", () => {
    const role = entry({
      action: "team.role",
      targetType: "user",
      details: { from: "facilitator", to: "admin", member: "Huda (huda@hikaya.test)" },
    });
    expect(auditSentence(role, "en", en)).toBe("Amal changed the role of Huda (huda@hikaya.test) from Facilitator to Admin");
    const removed = entry({
      action: "team.remove",
      targetType: "user",
      details: { role: "facilitator", member: "+962791234567" },
    });
    expect(auditSentence(removed, "ar", ar)).toBe("Amal: إزالة +962791234567 من الفريق");
    const older = entry({ action: "team.remove", targetType: "user", details: { role: "facilitator" } });
    expect(auditSentence(older, "en", en)).toBe("Amal removed a team member from the team");
  });

  it("falls back to the e-mail for an operator without a name, and to the action's label for an unknown action", () => {
    const unknown = entry({ actorName: null, action: "story.thumbnail_v2", details: {} });
    expect(auditSentence(unknown, "en", en)).toBe("amal@hikaya.test: story.thumbnail_v2");
    const block = entry({ action: "person.block", targetType: "user", targetNameEn: "Sara", targetNameAr: "Sara" });
    expect(auditSentence(block, "ar", ar)).toBe("Amal: حظر «Sara»");
    const maintenance = entry({ action: "settings.maintenance_on", targetType: "settings", targetId: "site" });
    expect(auditSentence(maintenance, "en", en)).toBe("Amal turned maintenance mode on");
  });
});
