/**
 * The console's calls to /api/admin/* (and the few public ones it reads), one query or mutation each.
 * Uploads go through XMLHttpRequest, the only browser API that reports upload progress.
 */
import type {
  AdminAnalytics,
  AdminCharacter,
  AdminLandingAnswer,
  AdminMedia,
  AdminQuestion,
  AdminSettings,
  AdminStory,
  AdminUserDetail,
  AnswerInput,
  AuditPage,
  CharacterInput,
  ContactPage,
  DocumentInput,
  DocumentKey,
  ErrorCode,
  FamilyMessageList,
  InstructionInput,
  InstructionLocation,
  Keepsake,
  LandingAnswerInput,
  OutboxList,
  ReorderImpact,
  ReorderInput,
  SettingsInput,
  StoryInput,
  TeamInvite,
  TeamJoin,
  TeamMember,
  TeamRecover,
  TranscriptInput,
  UploadPurpose,
  UploadResult,
  UserList,
  UserSummary,
} from "@hikaya/contracts";
import { infiniteQueryOptions, keepPreviousData, queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { ApiError, api, send } from "../lib/api-client.ts";
import { refreshSettings } from "../lib/settings.ts";
import { consoleSession, consoleToken } from "./admin-session.ts";
import { secondFactorRefused } from "./second-factor.tsx";

/**
 * The public API client signed with the console's own session (never the user app's). A refusal for want of the
 * operator's second factor makes the console ask for it (second-factor.tsx).
 */
export function consoleApi<T>(path: string, options: Omit<NonNullable<Parameters<typeof api>[1]>, "session"> = {}): Promise<T> {
  return api<T>(path, { ...options, session: consoleSession }).catch((error: unknown) => {
    if (error instanceof ApiError && error.code === "mfa_required") secondFactorRefused();
    throw error;
  });
}

export const adminQueries = {
  stories: () => queryOptions({ queryKey: ["admin", "stories"], queryFn: async () => (await storyPage("", 0, 1000)).stories }),
  /** A page of the list, or the stories whose title contains `q`; `total` counts every match. */
  storyPage: (q: string, offset: number, limit: number) =>
    queryOptions({
      queryKey: ["admin", "stories", "page", q, offset, limit],
      queryFn: () => storyPage(q, offset, limit),
      placeholderData: (previous) => previous,
    }),
  story: (id: string) =>
    queryOptions({ queryKey: ["admin", "stories", id], queryFn: () => consoleApi<AdminStory>(`/admin/stories/${id}`) }),
  questions: (storyId: string) =>
    queryOptions({
      queryKey: ["admin", "questions", storyId],
      queryFn: () => consoleApi<AdminQuestion[]>(`/admin/stories/${storyId}/questions`),
    }),
  characters: () =>
    queryOptions({ queryKey: ["admin", "characters"], queryFn: () => consoleApi<AdminCharacter[]>("/admin/characters") }),
  landingAnswers: () =>
    queryOptions({ queryKey: ["admin", "landing"], queryFn: () => consoleApi<AdminLandingAnswer[]>("/admin/landing-answers") }),
  media: () => queryOptions({ queryKey: ["admin", "media"], queryFn: () => consoleApi<AdminMedia>("/admin/media") }),
  settings: () => queryOptions({ queryKey: ["admin", "settings"], queryFn: () => consoleApi<AdminSettings>("/admin/settings") }),
  team: () => queryOptions({ queryKey: ["admin", "team"], queryFn: () => consoleApi<TeamMember[]>("/admin/team") }),
  users: (q: string, offset: number) =>
    queryOptions({
      queryKey: ["admin", "users", q, offset],
      queryFn: () =>
        consoleApi<UserList>(`/users?limit=50&offset=${offset}&families=true${q ? `&q=${encodeURIComponent(q)}` : ""}`),
      placeholderData: (previous) => previous,
    }),
  user: (id: string) => queryOptions({ queryKey: ["admin", "user", id], queryFn: () => consoleApi<UserSummary>(`/users/${id}`) }),
  userDetail: (id: string) =>
    queryOptions({
      queryKey: ["admin", "user-detail", id],
      queryFn: () => consoleApi<AdminUserDetail>(`/admin/users/${id}/detail`),
    }),
  /**
   * A person's printable keepsake (admins only). Every read is recorded in the audit log, so it is read once per
   * visit: no refetch when the window regains focus.
   */
  keepsake: (id: string, language: "en" | "ar") =>
    queryOptions({
      queryKey: ["admin", "keepsake", id, language],
      queryFn: () => consoleApi<Keepsake>(`/keepsake/people/${encodeURIComponent(id)}?lang=${language}`),
      staleTime: Number.POSITIVE_INFINITY,
      gcTime: 0,
    }),
  /** What relatives left in a person's book (admins), to remove abuse. */
  familyMessages: (id: string) =>
    queryOptions({
      queryKey: ["admin", "family-messages", id],
      queryFn: () => consoleApi<FamilyMessageList>(`/keepsake/people/${encodeURIComponent(id)}/family-messages`),
    }),
  contacts: (status: "open" | "handled" | "all", q: string) =>
    pagedQuery<ContactPage>(["admin", "contacts", status, q], "/admin/contact-submissions", { status, q }),
  outbox: (q: string) => pagedQuery<OutboxList>(["admin", "outbox", q], "/admin/sms-outbox", { q }),
  analytics: (from: string, to: string) =>
    queryOptions({
      queryKey: ["admin", "analytics", from, to],
      queryFn: () => consoleApi<AdminAnalytics>(`/admin/analytics?from=${from}&to=${to}`),
    }),
  audit: (action: string, q: string) => pagedQuery<AuditPage>(["admin", "audit", action, q], "/admin/audit", { action, q }),
};

async function storyPage(q: string, offset: number, limit: number): Promise<{ stories: AdminStory[]; total: number }> {
  const query = `limit=${limit}&offset=${offset}${q ? `&q=${encodeURIComponent(q)}` : ""}`;
  const res = await send(`/api/admin/stories?${query}`, {}, consoleSession);
  const body = (await res.json().catch(() => undefined)) as
    | AdminStory[]
    | { code?: ErrorCode; message?: string; details?: unknown };
  if (!res.ok || !Array.isArray(body)) {
    const error = Array.isArray(body) ? undefined : body;
    throw new ApiError(error?.code ?? statusCode(res.status), error?.message ?? res.statusText, res.status, error?.details);
  }
  return { stories: body, total: Number(res.headers.get("x-total-count") ?? body.length) };
}

/**
 * A long console list read a page at a time: each page's `nextCursor` asks for the next ("Load more"); empty
 * parameters are left out. While a new search loads, the previous results stay on screen.
 */
function pagedQuery<T extends { nextCursor: string | null }>(queryKey: string[], path: string, params: Record<string, string>) {
  return infiniteQueryOptions({
    queryKey,
    initialPageParam: "",
    queryFn: ({ pageParam }) => {
      const search = new URLSearchParams({ limit: "50" });
      for (const [key, value] of Object.entries({ ...params, cursor: pageParam })) if (value) search.set(key, value);
      return consoleApi<T>(`${path}?${search}`);
    },
    getNextPageParam: (last: T) => last.nextCursor ?? undefined,
    placeholderData: keepPreviousData,
  });
}

/** A mutation that refreshes the given query keys (and the audit log) once it succeeds. */
function useAdminMutation<TInput, TResult>(fn: (input: TInput) => Promise<TResult>, invalidate: string[][]) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: async () => {
      await Promise.all([...invalidate, ["admin", "audit"]].map((queryKey) => client.invalidateQueries({ queryKey })));
    },
  });
}

export const useCreateStory = () =>
  useAdminMutation(
    (input: StoryInput) => consoleApi<AdminStory>("/admin/stories", { method: "POST", body: input }),
    [["admin", "stories"]],
  );
export const useUpdateStory = () =>
  useAdminMutation(
    ({ id, input }: { id: string; input: StoryInput }) =>
      consoleApi<AdminStory>(`/admin/stories/${id}`, { method: "PUT", body: input }),
    [["admin", "stories"]],
  );
export const useDeleteStory = () =>
  useAdminMutation(
    (id: string) => consoleApi<{ watchedBy: number; recordingsKept: number }>(`/admin/stories/${id}`, { method: "DELETE" }),
    [["admin", "stories"]],
  );
export const usePublishStory = () =>
  useAdminMutation(
    ({ id, published }: { id: string; published: boolean }) =>
      consoleApi<AdminStory>(`/admin/stories/${id}/published`, { method: "PUT", body: { published } }),
    [["admin", "stories"]],
  );
/** A dry run of a reorder: how many people would see a story they never watched as watched. */
export const reorderImpact = (ids: string[]) =>
  consoleApi<ReorderImpact>("/admin/stories/reorder/impact", { method: "POST", body: { ids } });
export const useReorderStories = () =>
  useAdminMutation(
    (input: ReorderInput) => consoleApi<AdminStory[]>("/admin/stories/reorder", { method: "POST", body: input }),
    [["admin", "stories"]],
  );

export const useAddQuestion = (storyId: string) =>
  useAdminMutation(
    (media: string) => consoleApi<AdminQuestion[]>(`/admin/stories/${storyId}/questions`, { method: "POST", body: { media } }),
    [
      ["admin", "questions", storyId],
      ["admin", "stories"],
    ],
  );
export const useUpdateQuestion = (storyId: string) =>
  useAdminMutation(
    ({ id, media, transcript, version }: { id: string; media: string; transcript?: TranscriptInput; version: number }) =>
      consoleApi<AdminQuestion[]>(`/admin/questions/${id}`, { method: "PUT", body: { media, transcript, version } }),
    [["admin", "questions", storyId]],
  );
export const useReorderAnswers = (storyId: string) =>
  useAdminMutation(
    ({ questionId, input }: { questionId: string; input: ReorderInput }) =>
      consoleApi<AdminQuestion[]>(`/admin/questions/${questionId}/answers/reorder`, { method: "POST", body: input }),
    [["admin", "questions", storyId]],
  );
export const useDeleteQuestion = (storyId: string) =>
  useAdminMutation(
    (id: string) => consoleApi<AdminQuestion[]>(`/admin/questions/${id}`, { method: "DELETE" }),
    [
      ["admin", "questions", storyId],
      ["admin", "stories"],
    ],
  );
export const useReorderQuestions = (storyId: string) =>
  useAdminMutation(
    (input: ReorderInput) =>
      consoleApi<AdminQuestion[]>(`/admin/stories/${storyId}/questions/reorder`, { method: "POST", body: input }),
    [["admin", "questions", storyId]],
  );
export const useAddAnswer = (storyId: string) =>
  useAdminMutation(
    ({ questionId, characterId, audio }: { questionId: string; characterId: string; audio: string }) =>
      consoleApi<AdminQuestion[]>(`/admin/questions/${questionId}/answers`, { method: "POST", body: { characterId, audio } }),
    [
      ["admin", "questions", storyId],
      ["admin", "characters"],
    ],
  );
export const useUpdateAnswer = (storyId: string) =>
  useAdminMutation(
    ({ id, input }: { id: string; input: AnswerInput }) =>
      consoleApi<AdminQuestion[]>(`/admin/answers/${id}`, { method: "PUT", body: input }),
    [["admin", "questions", storyId]],
  );
export const useDeleteAnswer = (storyId: string) =>
  useAdminMutation(
    (id: string) => consoleApi<AdminQuestion[]>(`/admin/answers/${id}`, { method: "DELETE" }),
    [
      ["admin", "questions", storyId],
      ["admin", "characters"],
    ],
  );

export const useSaveCharacter = () =>
  useAdminMutation(
    ({ id, input }: { id?: string; input: CharacterInput }) =>
      consoleApi<AdminCharacter[]>(id ? `/admin/characters/${id}` : "/admin/characters", {
        method: id ? "PUT" : "POST",
        body: input,
      }),
    [["admin", "characters"]],
  );
export const useDeleteCharacter = () =>
  useAdminMutation(
    (id: string) => consoleApi<AdminCharacter[]>(`/admin/characters/${id}`, { method: "DELETE" }),
    [["admin", "characters"]],
  );

export const useAddLandingAnswer = () =>
  useAdminMutation(
    (input: { characterId: string; audio: string }) =>
      consoleApi<AdminLandingAnswer[]>("/admin/landing-answers", { method: "POST", body: input }),
    [
      ["admin", "landing"],
      ["admin", "characters"],
    ],
  );
export const useUpdateLandingAnswer = () =>
  useAdminMutation(
    ({ id, input }: { id: string; input: LandingAnswerInput }) =>
      consoleApi<AdminLandingAnswer[]>(`/admin/landing-answers/${id}`, { method: "PUT", body: input }),
    [
      ["admin", "landing"],
      ["admin", "characters"],
    ],
  );
export const useReorderLandingAnswers = () =>
  useAdminMutation(
    (input: ReorderInput) => consoleApi<AdminLandingAnswer[]>("/admin/landing-answers/reorder", { method: "POST", body: input }),
    [["admin", "landing"]],
  );
export const useDeleteLandingAnswer = () =>
  useAdminMutation(
    (id: string) => consoleApi<AdminLandingAnswer[]>(`/admin/landing-answers/${id}`, { method: "DELETE" }),
    [
      ["admin", "landing"],
      ["admin", "characters"],
    ],
  );

export const useSetInstruction = () =>
  useAdminMutation(
    ({ location, input }: { location: InstructionLocation; input: InstructionInput }) =>
      consoleApi<AdminMedia>(`/admin/instructions/${encodeURIComponent(location)}`, { method: "PUT", body: input }),
    [["admin", "media"]],
  );
/** The Arabic file beside an English one (server: modules/admin/arabic-media.*); null removes it. */
export const useSetStoryArabicVideo = () =>
  useAdminMutation(
    ({ id, videoUrl }: { id: string; videoUrl: string | null }) =>
      consoleApi<AdminStory>(`/admin/stories/${id}/video/ar`, { method: "PUT", body: { videoUrl } }),
    [["admin", "stories"]],
  );
export const useRemoveArabicThumbnail = () =>
  useAdminMutation(
    (id: string) => consoleApi<AdminStory>(`/admin/stories/${id}/thumbnail/ar`, { method: "DELETE" }),
    [["admin", "stories"]],
  );
export const useSetQuestionArabicMedia = (storyId: string) =>
  useAdminMutation(
    ({ id, media }: { id: string; media: string | null }) =>
      consoleApi<AdminQuestion[]>(`/admin/questions/${id}/media/ar`, { method: "PUT", body: { media } }),
    [["admin", "questions", storyId]],
  );
export const useSetInstructionArabicMedia = () =>
  useAdminMutation(
    ({ location, media }: { location: InstructionLocation; media: string | null }) =>
      consoleApi<AdminMedia>(`/admin/instructions/${encodeURIComponent(location)}/ar`, { method: "PUT", body: { media } }),
    [["admin", "media"]],
  );
export const useSetDocument = () =>
  useAdminMutation(
    ({ key, input }: { key: DocumentKey; input: DocumentInput }) =>
      consoleApi<AdminMedia>(`/admin/documents/${key}`, { method: "PUT", body: input }),
    [["admin", "media"]],
  );

export const useSaveSettings = () =>
  useAdminMutation(
    async (input: SettingsInput) => {
      const saved = await consoleApi<AdminSettings>("/admin/settings", { method: "PUT", body: input });
      // The public settings every screen reads (title, colour, maintenance) live outside TanStack Query.
      void refreshSettings();
      return saved;
    },
    [["admin", "settings"]],
  );

export const useMarkContact = () =>
  useAdminMutation(
    ({ id, handled }: { id: string; handled: boolean }) =>
      consoleApi<{ ok: true }>(`/admin/contact-submissions/${id}`, { method: "PUT", body: { handled } }),
    [["admin", "contacts"]],
  );

export interface UploadProgress {
  loaded: number;
  total: number;
}

/**
 * Sends one file as multipart/form-data with progress events. Rejects with ApiError like the JSON
 * client, so the UI shows the same translated messages (415 wrong type, 413 too large, network).
 */
export async function uploadWithProgress<T>(
  url: string,
  file: File,
  options: { method?: "POST" | "PUT"; onProgress?: (p: UploadProgress) => void; signal?: AbortSignal } = {},
): Promise<T> {
  const token = await consoleToken();
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(options.method ?? "POST", url);
    if (token) xhr.setRequestHeader("authorization", `Bearer ${token}`);
    xhr.responseType = "text";
    xhr.upload.onprogress = (event) =>
      options.onProgress?.({ loaded: event.loaded, total: event.lengthComputable ? event.total : file.size });
    xhr.onload = () => {
      let body: { code?: string; message?: string; details?: unknown } | undefined;
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {
        body = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as T);
      else
        reject(
          new ApiError(
            (body?.code as ErrorCode | undefined) ?? statusCode(xhr.status),
            body?.message ?? xhr.statusText,
            xhr.status,
            body?.details,
          ),
        );
    };
    xhr.onerror = () => reject(new ApiError("network", "Network error", 0));
    xhr.onabort = () => reject(new ApiError("network", "Upload cancelled", 0));
    options.signal?.addEventListener("abort", () => xhr.abort(), { once: true });
    const form = new FormData();
    form.append("file", file, file.name);
    xhr.send(form);
  });
}

function statusCode(status: number): ErrorCode {
  if (status === 401) return "unauthorized";
  if (status === 403) return "forbidden";
  if (status === 413) return "payload_too_large";
  if (status === 415) return "unsupported_media_type";
  if (status >= 500) return "internal_error";
  return "bad_request";
}

export const uploadTo = (purpose: UploadPurpose) => `/api/admin/uploads/${purpose}`;
export type { UploadResult };

/** Fetches a private file (a person's recording) with the admin's token and hands back a blob URL. */
export async function fetchPrivateAudio(url: string): Promise<string> {
  const res = await send(url, {}, consoleSession);
  if (!res.ok) throw new ApiError(statusCode(res.status), res.statusText, res.status);
  return URL.createObjectURL(await res.blob());
}

/** The team page's changes: invite, change a role, remove; each refreshes the list. */
export function useTeamMutations() {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: ["admin", "team"] });
  return {
    invite: useMutation({
      mutationFn: (input: TeamInvite) => consoleApi<TeamMember>("/admin/team", { method: "POST", body: input }),
      onSuccess: refresh,
    }),
    setRole: useMutation({
      mutationFn: ({ id, role }: { id: string; role: TeamMember["role"] }) =>
        consoleApi<TeamMember>(`/admin/team/${id}`, { method: "PUT", body: { role } }),
      onSuccess: refresh,
    }),
    remove: useMutation({
      mutationFn: (id: string) => consoleApi<{ ok: true }>(`/admin/team/${id}`, { method: "DELETE" }),
      onSuccess: refresh,
    }),
  };
}

/** An admin's actions on one person (people page): block or unblock, send a reset code, delete the account. */
export function usePersonActions(id: string) {
  const client = useQueryClient();
  const refresh = () =>
    Promise.all([
      client.invalidateQueries({ queryKey: ["admin", "user", id] }),
      client.invalidateQueries({ queryKey: ["admin", "user-detail", id] }),
      client.invalidateQueries({ queryKey: ["admin", "users"] }),
    ]);
  return {
    setBlocked: useMutation({
      mutationFn: (blocked: boolean) =>
        consoleApi<{ ok: true }>(`/admin/users/${id}/block`, { method: "PUT", body: { blocked } }),
      onSuccess: refresh,
    }),
    sendResetCode: useMutation({
      mutationFn: () => consoleApi<{ ok: true }>(`/admin/users/${id}/reset-code`, { method: "POST" }),
    }),
    remove: useMutation({
      mutationFn: () => consoleApi<{ ok: true }>(`/admin/users/${id}`, { method: "DELETE" }),
      onSuccess: () => client.invalidateQueries({ queryKey: ["admin", "users"] }),
    }),
  };
}

/** The join page: the invitation's code sets the invitee's first password (no session yet; they sign in after). */
export const joinTeam = (body: TeamJoin) => api<{ message: string }>("/team/join", { method: "POST", body });
/** The console's "forgot password": answers the same whoever asks; an operator gets a link to the reset page. */
export const recoverOperator = (body: TeamRecover) => api<{ message: string }>("/team/recover", { method: "POST", body });
/** The reset page: the link's code sets a new password and ends every session. */
export const resetOperatorPassword = (body: TeamJoin) =>
  api<{ message: string }>("/team/reset-password", { method: "POST", body });
