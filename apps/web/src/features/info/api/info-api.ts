import type { ContactSubmissionBody, Contents } from "@hikaya/contracts";
import { queryOptions } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";

/** GET /api/get/contents: the terms and privacy PDFs' URLs. */
export const contentsQuery = queryOptions({
  queryKey: ["contents"],
  queryFn: ({ signal }) => api<Contents>("/get/contents", { signal }),
  staleTime: 5 * 60_000,
});

/** POST /api/contactSubmission. */
export const submitContact = (body: ContactSubmissionBody) => api<{ id: string }>("/contactSubmission", { body });
