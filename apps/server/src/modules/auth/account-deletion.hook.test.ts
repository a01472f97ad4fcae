import { describe, expect, it } from "vitest";
import { AccountDeletionHook } from "./account-deletion.hook.ts";

const meta = { ip: "127.0.0.1", userAgent: null };
const admin = { id: "service_role", email: null };

describe("AccountDeletionHook", () => {
  it("runs the one deletion registered, with who asked", async () => {
    const hook = new AccountDeletionHook();
    const calls: unknown[] = [];
    hook.register(async (...args) => calls.push(args));
    await hook.run("user-1", meta, admin);
    expect(calls).toEqual([["user-1", meta, admin]]);
  });

  it("refuses a second registration and a run with none, rather than deleting only auth's rows", () => {
    const hook = new AccountDeletionHook();
    expect(() => hook.run("user-1", meta, admin)).toThrow(/no account deletion registered/);
    hook.register(async () => undefined);
    expect(() => hook.register(async () => undefined)).toThrow(/already registered/);
  });
});
