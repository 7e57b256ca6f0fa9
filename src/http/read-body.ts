/** Reads a JSON request body with a size limit: Content-Length is checked first, then the bytes actually read. */
import { AppError } from "../domain/errors";
import { readBounded } from "../read-bounded";

/** application/json, or any `+json` type (e.g. application/merge-patch+json). */
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const contentType = request.headers.get("content-type");
  if (contentType !== null && !JSON_MEDIA_TYPE.test(contentType)) {
    throw new AppError(
      "unsupported_media_type",
      "The request body must be JSON (Content-Type: application/json)",
    );
  }
  const tooLarge = () =>
    new AppError("payload_too_large", `The request body is larger than ${maxBytes} bytes`);
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  if (!request.body) throw new AppError("bad_request", "The request has no body");

  const bytes = await readBounded(request.body, maxBytes, { drainLimitBytes: MAX_DRAIN_BYTES });
  if (!bytes) throw tooLarge();
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes));
  } catch {
    throw new AppError("bad_request", "The request body is not valid JSON");
  }
}

/**
 * A refused body is read to its end rather than cancelled (see readBounded); past this many bytes
 * (Cloudflare's own request-size limit) the stream is cancelled after all.
 */
const MAX_DRAIN_BYTES = 100 * 1024 * 1024;
