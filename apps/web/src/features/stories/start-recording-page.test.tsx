// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../lib/api-client.ts";
import { initI18n, loadNamespaces, setLanguage } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";
import common from "../../locales/en/common.json";
import en from "../../locales/en/stories.json";
import { saveRecording } from "./api/recordings.ts";
import { StartRecordingPage } from "./start-recording-page.tsx";

const navigate = vi.fn();
let params = { id: "s1", index: "1" };
vi.mock("../../lib/router.tsx", () => ({ useParams: () => params, useNavigate: () => navigate }));
vi.mock("../../components/require-user.ts", () => ({ useRequireUser: () => true }));
vi.mock("../../components/title-bar.tsx", () => ({ TitleBar: () => null }));
vi.mock("./instruction-video.tsx", () => ({ InlineInstruction: () => null }));
vi.mock("./api/stories.ts", () => ({
  useStories: () => ({
    isPending: false,
    data: [
      { id: "s1", order: 1, watchStatus: "Active" },
      { id: "s9", order: 9 },
    ],
  }),
}));
// Offline: the upload fails and the take is queued on the device.
vi.mock("./api/recordings.ts", () => ({
  saveRecording: vi.fn(async () => {
    throw new TypeError("Failed to fetch");
  }),
  listPending: vi.fn(async () => []),
  retryPending: vi.fn(),
  dropPending: vi.fn(),
}));
// A take is recorded; the microphone is not the subject here.
vi.mock("./use-recorder.ts", () => ({
  useStoryTake: () => ({
    state: "recorded",
    take: { blob: new Blob(["x"]), url: "blob:take", seconds: 3 },
    seconds: 3,
    idleHint: false,
    start: vi.fn(),
    stop: vi.fn(),
    reset: vi.fn(),
  }),
}));

beforeAll(async () => {
  await initI18n();
  await loadNamespaces("stories");
  await setLanguage("en");
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  navigate.mockClear();
});

async function saveOffline(label: string) {
  const error = vi.spyOn(toast, "error");
  const info = vi.spyOn(toast, "info");
  render(<StartRecordingPage />);
  await act(async () => {
    fireEvent.click(screen.getByRole("button", { name: label }));
  });
  await vi.waitFor(() => expect(error.mock.calls.length + info.mock.calls.length).toBeGreaterThan(0));
  return { error, info };
}

describe("saving a recording offline", () => {
  it("says once that the take is kept on the device, and goes to the stories", async () => {
    params = { id: "s1", index: "1" };
    const { error, info } = await saveOffline(en.recording.goToStories);
    expect(error).not.toHaveBeenCalled();
    expect(info.mock.calls.map(([text]) => text)).toEqual([en.recording.keptOffline]);
    expect(navigate).toHaveBeenCalledWith("/", { replace: true });
  });

  it("says the take is kept and will be sent, and stays, where the story needs the upload", async () => {
    params = { id: "s9", index: "9" };
    const { error, info } = await saveOffline(en.recording.saveStory);
    expect(error).not.toHaveBeenCalled();
    expect(info.mock.calls.map(([text]) => text)).toEqual([en.recording.keptWillSend]);
    expect(navigate).not.toHaveBeenCalled();
  });

  it("says the save failed, and stays, when the server refuses the take for another reason than the file", async () => {
    params = { id: "s9", index: "9" };
    // A file refused for what it is says why (below); any other refusal is the spec's "Error adding recording".
    vi.mocked(saveRecording).mockRejectedValueOnce(new ApiError("story_locked", "locked", 403));
    const { error, info } = await saveOffline(en.recording.saveStory);
    expect(error.mock.calls.map(([text]) => text)).toEqual([en.recording.error]);
    expect(info).not.toHaveBeenCalled();
    expect(navigate).not.toHaveBeenCalled();
  });
});

describe("a recording the server refuses for what it is", () => {
  it("says why (longer than 10 minutes), is not kept to be sent again, and stays", async () => {
    params = { id: "s1", index: "1" };
    vi.mocked(saveRecording).mockImplementationOnce(async () => {
      throw new ApiError("voice_too_long", "A voice may be at most 10 minutes long", 422);
    });
    const { error, info } = await saveOffline(en.recording.goToStories);
    expect(error.mock.calls.map(([text]) => text)).toEqual([common.errors.voice_too_long]);
    expect(info).not.toHaveBeenCalled();
    expect(navigate).not.toHaveBeenCalled();
  });
});
