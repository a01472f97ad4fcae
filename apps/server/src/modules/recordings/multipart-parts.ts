import type { Multipart } from "@fastify/multipart";
import type { FastifyRequest } from "fastify";
import { AppError } from "../../errors.ts";

/**
 * The parts of a multipart request, where a body the parser cannot read (cut short, bad headers) is the
 * client's mistake, a 400, rather than an unexplained 500. Limit errors keep their own 413.
 */
export async function* multipartParts(request: FastifyRequest): AsyncGenerator<Multipart> {
  const iterator = request.parts()[Symbol.asyncIterator]();
  while (true) {
    let next: IteratorResult<Multipart>;
    try {
      next = await iterator.next();
    } catch (error) {
      const status = (error as { statusCode?: number }).statusCode;
      if (error instanceof AppError || (typeof status === "number" && status >= 400 && status < 500)) throw error;
      throw new AppError("bad_request", "The multipart body is malformed or incomplete");
    }
    if (next.done) return;
    yield next.value;
  }
}
