import multipart, { type FastifyMultipartOptions, type Multipart, type MultipartFile } from "@fastify/multipart";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError } from "../errors.ts";
import { isUnstorableText } from "./input-rules.ts";

/**
 * Registers @fastify/multipart in `app`, in place of the root's drain-only parser (token-api-body.ts). Call it in
 * a scope that holds only the routes that read parts: the plugin adds two async hooks (a promise and a microtask
 * each) to every route of its scope.
 */
export async function registerMultipart(app: FastifyInstance, options: FastifyMultipartOptions = {}) {
  app.removeContentTypeParser("multipart/form-data");
  await app.register(multipart, options);
}

/** Busboy limits for one call; the route's registration of @fastify/multipart gives the defaults. */
export type MultipartLimits = NonNullable<Parameters<FastifyRequest["parts"]>[0]>["limits"];

const malformed = () => new AppError("bad_request", "The multipart body is malformed or incomplete");

/** A parser error the client caused (limits keep their own 413), or a malformed body: never a bare 500. */
function asClientError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  const status = (error as { statusCode?: number }).statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) return error;
  return malformed();
}

/**
 * A file stream cut short (the body ends mid-file) fails with busboy's own error; marking it 400 lets the error
 * handler answer in the app's shape whoever reads the stream (a service's pipeline included).
 */
function markStreamErrors(file: MultipartFile) {
  const mark = (error: unknown) => {
    const e = error as { statusCode?: number } | null;
    if (e && typeof e === "object" && e.statusCode === undefined) e.statusCode = 400;
  };
  // A short body is parsed in one go: the stream may have failed before anyone listens.
  mark(file.file.errored);
  file.file.prependListener("error", mark);
}

/**
 * The one multipart parser of the server: every multipart route reads its parts here. A body the parser cannot
 * read (no or empty boundary, cut short, bad headers) is a 400, a part over a limit a 413, a request that is not
 * multipart a 415; field values are held to the same text rule as JSON (no NUL).
 */
export async function* multipartParts(request: FastifyRequest, limits?: MultipartLimits): AsyncGenerator<Multipart> {
  if (!request.isMultipart()) throw new AppError("unsupported_media_type", "Send the form as multipart/form-data");
  let iterator: AsyncIterator<Multipart>;
  try {
    iterator = request.parts(limits ? { limits } : undefined)[Symbol.asyncIterator]();
  } catch (error) {
    throw asClientError(error);
  }
  while (true) {
    let next: IteratorResult<Multipart>;
    try {
      next = await iterator.next();
    } catch (error) {
      throw asClientError(error);
    }
    if (next.done) return;
    const part = next.value;
    if (isUnstorableText(part.fieldname)) throw new AppError("bad_request", "A field name holds a character that is not allowed");
    if (part.type === "file") {
      if (isUnstorableText(part.filename))
        throw new AppError("bad_request", "The file name holds a character that is not allowed");
      markStreamErrors(part);
    } else if (typeof part.value === "string" && isUnstorableText(part.value))
      throw new AppError("bad_request", `${part.fieldname}: holds a character that is not allowed`);
    yield part;
  }
}

/** The first file of a multipart request (its other parts skipped), or undefined when it has none. */
export async function multipartFile(request: FastifyRequest, limits?: MultipartLimits): Promise<MultipartFile | undefined> {
  for await (const part of multipartParts(request, limits)) {
    if (part.type === "file") return part;
  }
  return undefined;
}
