import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AdminCharacter, AdminLandingAnswer, AdminMedia, AuditPage } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../config.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

const DEMO = join(REPO_ROOT, "apps/server/demo/files");
const AUDIO = readFileSync(join(DEMO, "audio/landing-aunt.m4a"));
const PDF = readFileSync(join(DEMO, "documents/terms.pdf"));

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await createTestUser(t.app, { admin: true });
});
afterAll(async () => t?.close());

async function upload(purpose: string, file: Buffer, name: string, type: string): Promise<string> {
  const boundary = "----hikayacontent";
  const res = await t.app.inject({
    method: "POST",
    url: `/api/admin/uploads/${purpose}`,
    headers: { ...admin.headers, "content-type": `multipart/form-data; boundary=${boundary}` },
    payload: Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n`,
      ),
      file,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]),
  });
  expect(res.statusCode).toBe(200);
  return res.json().path;
}

const call = (method: "GET" | "POST" | "PUT" | "DELETE", url: string, payload?: object) =>
  t.app.inject({ method, url, headers: admin.headers, ...(payload ? { payload } : {}) });

async function newCharacter(nameEn: string): Promise<AdminCharacter> {
  const res = await call("POST", "/api/admin/characters", { nameEn, nameAr: `${nameEn} بالعربية` });
  expect(res.statusCode).toBe(200);
  return (res.json() as AdminCharacter[]).find((c) => c.nameEn === nameEn) as AdminCharacter;
}

async function auditOf(action: string) {
  return ((await call("GET", `/api/admin/audit?action=${action}`)).json() as AuditPage).entries;
}

describe("family members carry a version", () => {
  it("the second of two saves from one version gets 409 with the stored values, and changes nothing", async () => {
    const amal = await newCharacter("Amal");
    expect(amal.version).toBe(0);
    const save = (nameEn: string) =>
      call("PUT", `/api/admin/characters/${amal.id}`, { nameEn, nameAr: amal.nameAr, version: amal.version });
    const first = await save("Amal (tab one)");
    expect(first.statusCode).toBe(200);
    expect((first.json() as AdminCharacter[]).find((c) => c.id === amal.id)).toMatchObject({ version: 1 });
    const second = await save("Amal (tab two)");
    expect(second.statusCode).toBe(409);
    expect(second.json()).toMatchObject({
      code: "conflict",
      details: { reason: "stale_version", current: { id: amal.id, nameEn: "Amal (tab one)", version: 1 } },
    });
    const stored = ((await call("GET", "/api/admin/characters")).json() as AdminCharacter[]).find((c) => c.id === amal.id);
    expect(stored).toMatchObject({ nameEn: "Amal (tab one)", version: 1 });
    const updates = (await auditOf("character.update")).filter((e) => e.targetId === amal.id);
    expect(updates).toHaveLength(1);
    expect(updates[0]?.details).toMatchObject({ nameEn: { from: "Amal", to: "Amal (tab one)" } });
  });

  it("two saves racing from one version: exactly one succeeds", async () => {
    const c = await newCharacter("Racer");
    const results = await Promise.all(
      ["A", "B"].map((nameEn) => call("PUT", `/api/admin/characters/${c.id}`, { nameEn, nameAr: c.nameAr, version: c.version })),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
  });
});

describe("instruction videos and documents carry a version", () => {
  it("a stale document save is refused with what is stored; the first save of a key counts from 0", async () => {
    const before = (await call("GET", "/api/admin/media")).json() as AdminMedia;
    const terms = before.documents.find((d) => d.key === "termsAndCondition");
    expect(terms).toMatchObject({ path: null, version: 0 });
    const one = await upload("document", PDF, "one.pdf", "application/pdf");
    const two = await upload("document", PDF, "two.pdf", "application/pdf");
    const first = await call("PUT", "/api/admin/documents/termsAndCondition", { path: one, version: 0 });
    expect(first.statusCode).toBe(200);
    expect((first.json() as AdminMedia).documents.find((d) => d.key === "termsAndCondition")).toMatchObject({
      path: one,
      version: 1,
    });
    const stale = await call("PUT", "/api/admin/documents/termsAndCondition", { path: two, version: 0 });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({
      code: "conflict",
      details: { reason: "stale_version", current: { key: "termsAndCondition", path: one, version: 1 } },
    });
    const after = (await call("GET", "/api/admin/media")).json() as AdminMedia;
    expect(after.documents.find((d) => d.key === "termsAndCondition")?.path).toBe(one);
  });

  it("two first saves of an instruction video racing: exactly one succeeds", async () => {
    const audio = await upload("audio", AUDIO, "x.m4a", "audio/mp4");
    const results = await Promise.all(
      [0, 1].map(() => call("PUT", "/api/admin/instructions/Record%20Thoughts", { media: audio, version: 0 })),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    const media = (await call("GET", "/api/admin/media")).json() as AdminMedia;
    expect(media.instructions.find((i) => i.location === "Record Thoughts")).toMatchObject({ media: audio, version: 1 });
  });
});

describe("landing answers", () => {
  async function three(): Promise<AdminLandingAnswer[]> {
    const who = await newCharacter(`Landing ${Math.random().toString(36).slice(2, 7)}`);
    let list: AdminLandingAnswer[] = [];
    for (let i = 0; i < 3; i++) {
      const audio = await upload("audio", AUDIO, `l${i}.m4a`, "audio/mp4");
      list = (await call("POST", "/api/admin/landing-answers", { characterId: who.id, audio })).json();
    }
    return list;
  }

  it("reorder: the stored order becomes 1…n as asked, audited; a stale expected order is refused with 409", async () => {
    const list = await three();
    const ids = list.map((a) => a.id);
    const wanted = [ids[2], ids[0], ids[1], ...ids.slice(3)] as string[];
    const res = await call("POST", "/api/admin/landing-answers/reorder", { ids: wanted, expected: ids });
    expect(res.statusCode).toBe(200);
    expect((res.json() as AdminLandingAnswer[]).map((a) => [a.id, a.order])).toEqual(wanted.map((id, i) => [id, i + 1]));
    const stale = await call("POST", "/api/admin/landing-answers/reorder", { ids, expected: ids });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().code).toBe("conflict");
    const stored = (await call("GET", "/api/admin/landing-answers")).json() as AdminLandingAnswer[];
    expect(stored.map((a) => a.id)).toEqual(wanted);
    const [entry] = await auditOf("landing_answer.reorder");
    expect(entry?.details.moved).toEqual(expect.arrayContaining([expect.objectContaining({ id: ids[2], from: 3, to: 1 })]));
    const missing = await call("POST", "/api/admin/landing-answers/reorder", { ids: wanted.slice(1), expected: wanted });
    expect(missing.statusCode).toBe(400);
  });

  it("deleting one closes the gap, so places stay 1…n", async () => {
    const list = (await call("GET", "/api/admin/landing-answers")).json() as AdminLandingAnswer[];
    const second = list[1] as AdminLandingAnswer;
    const after = (await call("DELETE", `/api/admin/landing-answers/${second.id}`)).json() as AdminLandingAnswer[];
    expect(after.map((a) => a.order)).toEqual(after.map((_, i) => i + 1));
  });

  it("edit: another family member and audio; a stale version is refused with the stored answer", async () => {
    const list = (await call("GET", "/api/admin/landing-answers")).json() as AdminLandingAnswer[];
    const answer = list[0] as AdminLandingAnswer;
    const other = await newCharacter("Other voice");
    const audio = await upload("audio", AUDIO, "new.m4a", "audio/mp4");
    const saved = await call("PUT", `/api/admin/landing-answers/${answer.id}`, {
      characterId: other.id,
      audio,
      version: answer.version,
    });
    expect(saved.statusCode).toBe(200);
    expect((saved.json() as AdminLandingAnswer[]).find((a) => a.id === answer.id)).toMatchObject({
      characterId: other.id,
      characterNameEn: "Other voice",
      audio,
      order: answer.order,
      version: answer.version + 1,
    });
    const stale = await call("PUT", `/api/admin/landing-answers/${answer.id}`, {
      characterId: answer.characterId,
      audio: answer.audio,
      version: answer.version,
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().details).toMatchObject({ reason: "stale_version", current: { id: answer.id, characterId: other.id } });
    const nobody = await call("PUT", `/api/admin/landing-answers/${answer.id}`, { characterId: "nobody", audio });
    expect(nobody.statusCode).toBe(404);
  });
});
