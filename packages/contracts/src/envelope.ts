import { z } from "zod";

/**
 * The token API's envelope (spec section 7): `{ code: 200, data }` on success; on failure `code` is
 * the HTTP status and `data` the message. `errorCode` carries the stable code for translation.
 */
export const envelopeSchema = <T extends z.ZodType>(data: T) => z.object({ code: z.literal(200), data });

export const envelopeErrorSchema = z.object({
  code: z.number().int(),
  data: z.string(),
  errorCode: z.string().optional(),
});
export type EnvelopeError = z.infer<typeof envelopeErrorSchema>;
export type Envelope<T> = { code: 200; data: T };
