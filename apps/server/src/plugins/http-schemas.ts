import { envelopeErrorSchema, errorBodySchema } from "@hikaya/contracts";

/** Response schemas for the error statuses a route can answer, so the OpenAPI document lists them. */
export const errorResponses = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, errorBodySchema]));

/** Token API routes answer errors inside the envelope: `{ code: status, data: message, errorCode }`. */
export const envelopeErrorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, envelopeErrorSchema]));
