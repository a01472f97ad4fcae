import { describe, expect, it, vi } from "vitest";
import { tokenApi } from "../../../lib/api-client.ts";
import { uploadRecording } from "./recordings.ts";

vi.mock("../../../lib/api-client.ts", () => ({ tokenApi: vi.fn(async () => ({})) }));

describe("uploading a take", () => {
  it("sends the length the recorder measured, which WebM and MP4 files do not carry", async () => {
    await uploadRecording({ storyId: "s1", index: 2, blob: new Blob(["x"], { type: "audio/webm" }), durationSeconds: 83.6 });
    await uploadRecording({ storyId: "s1", index: 3, blob: new Blob(["x"], { type: "audio/webm" }) });
    const forms = vi.mocked(tokenApi).mock.calls.map(([, form]) => form as FormData);
    expect(forms.map((form) => form.get("duration"))).toEqual(["83.6", null]);
    expect(forms[0]?.get("story")).toBe("s1");
  });
});
