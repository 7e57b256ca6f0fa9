/** Imports through the service: upload one export file (the import command's formats), then follow it. */
import { UnifiedMemoryError } from "./errors.js";
import { request } from "./operations.js";
import type { Transport } from "./transport.js";
import type { Import, ImportsList } from "./types.js";

export interface UploadOptions {
  /** The file's name: reports name it, and its ending tells the format when `format` is absent. */
  name: string;
  /** mbox, eml, ics, vcf, slack, vtt, srt, markdown, github or chatgpt (default: told from the name). */
  format?: string;
  /** The items' source (default: the format's name). */
  source?: string;
  /**
   * The file's modification time: the date of records without one of their own. Give the same one when
   * uploading the same file again, so nothing changes (a File's lastModified is used when absent).
   */
  modifiedAt?: string | Date;
  signal?: AbortSignal;
}

export interface WaitOptions {
  /** Milliseconds between polls (default 1000). */
  interval?: number;
  /** Milliseconds to wait at most (default 10 minutes); then a `timeout` error. */
  timeout?: number;
  /** Called with the import after each poll (progress). */
  onProgress?: (job: Import) => void;
  signal?: AbortSignal;
}

export class ImportsApi {
  constructor(private readonly transport: Transport) {}

  /** Uploads the file (up to 25 MB); answers the import, queued. */
  upload(file: Blob | ArrayBuffer | Uint8Array, options: UploadOptions): Promise<Import> {
    const lastModified = typeof File !== "undefined" && file instanceof File ? file.lastModified : undefined;
    const modifiedAt =
      options.modifiedAt ?? (lastModified === undefined ? undefined : new Date(lastModified));
    return this.transport.json(
      request("createImport", {
        query: {
          name: options.name,
          format: options.format,
          source: options.source,
          modifiedAt: modifiedAt instanceof Date ? modifiedAt.toISOString() : modifiedAt,
        },
        bodyBytes: file,
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    );
  }

  get(id: string): Promise<Import> {
    return this.transport.json(request("getImport", { params: { id } }));
  }

  /** The caller's imports, newest first. */
  list(): Promise<ImportsList> {
    return this.transport.json(request("listImports"));
  }

  /** Polls the import until it is done or failed (a failed import is answered, not thrown). */
  async wait(id: string, options: WaitOptions = {}): Promise<Import> {
    const interval = options.interval ?? 1000;
    const deadline = Date.now() + (options.timeout ?? 600_000);
    for (;;) {
      const job = await this.get(id);
      options.onProgress?.(job);
      if (job.status === "done" || job.status === "failed") return job;
      if (Date.now() + interval > deadline) {
        throw new UnifiedMemoryError({
          code: "timeout",
          message: `Import ${id} is still ${job.status} (${job.summary.records} records so far)`,
          status: 0,
        });
      }
      if (options.signal?.aborted) throw options.signal.reason;
      await this.transport.sleep(interval);
    }
  }
}
