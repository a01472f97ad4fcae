import { describe, expect, it } from "vitest";
import { LIVE_SESSIONS_SHARE, VERIFIED_TOKENS_SHARE } from "../../modules/auth/auth.module.ts";
import { USER_VIEWS_SHARE } from "../../modules/auth/user-view-cache.ts";
import { PROFILE_SHARE } from "../../modules/profile/profile.service.ts";
import { STORY_LIST_SHARE } from "../../modules/program/story-list-cache.ts";
import { LAST_WATCHED_SHARE } from "../../modules/progress/last-watched.ts";
import { WEB_FILES_SHARE } from "../../modules/web/web-files.ts";
import { FILES_SHARE } from "../files/memory-cache.ts";

describe("CACHE_MAX_BYTES", () => {
  it("is shared by the in-process caches without giving out more than the whole", () => {
    const shares = [
      LIVE_SESSIONS_SHARE,
      VERIFIED_TOKENS_SHARE,
      STORY_LIST_SHARE,
      LAST_WATCHED_SHARE,
      PROFILE_SHARE,
      USER_VIEWS_SHARE,
      FILES_SHARE,
      WEB_FILES_SHARE,
    ];
    expect(shares.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1);
  });
});
