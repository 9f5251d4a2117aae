import { Busboy, type BusboyFileStream } from '@fastify/busboy';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BodyError } from './request-body.ts';
import type { HttpRequest } from './request.ts';

/**
 * multipart/form-data read by busboy as it arrives: text fields kept (within limits), file
 * parts streamed to where the caller says. Every way a body can be wrong ends in one BodyError
 * with the status a client is told (400 malformed, 413 past a limit).
 */

/** How much of a form is taken. */
export interface MultipartLimits {
  /** the largest text field, in bytes */
  fieldSize: number;
  /** the most text fields */
  fields: number;
  /** the most file parts taken when `file` is given (one more is a 400) */
  files: number;
}

/** How a form is read: its type, its limits, where file parts go. */
export interface MultipartOptions {
  contentType: string | undefined;
  limits: MultipartLimits;
  /** where a file part's bytes go; without it file parts are skipped unread */
  file?(part: { field: string; filename: string | undefined }): Writable;
  /** the first part is a file whatever its headers say (the original takes a backup upload's first part as the tar) */
  fileFirst?: boolean;
}

/** What a form held. */
export interface MultipartForm {
  fields: URLSearchParams;
  /** file parts written */
  files: number;
}

/** Reads a multipart/form-data body (whole or as it arrives): its fields, file parts to `options.file`. */
export function readMultipart(body: Readable | Buffer, options: MultipartOptions): Promise<MultipartForm> {
  const { limits } = options;
  // busboy would read a urlencoded body too
  if (!/^multipart\/form-data\b/i.test(options.contentType ?? '')) return Promise.reject(new BodyError(400, 'not a multipart/form-data body'));
  let parts = 0;
  let parser: ReturnType<typeof Busboy>;
  try {
    parser = Busboy({
      headers: { 'content-type': options.contentType ?? '' },
      limits: options.file ? limits : { fieldSize: limits.fieldSize, fields: limits.fields },
      isPartAFile: (_field, type, filename) => (options.fileFirst === true && parts++ === 0) || type === 'application/octet-stream' || filename !== undefined,
    });
  } catch (err) {
    return Promise.reject(new BodyError(400, `not a multipart/form-data body: ${(err as Error).message}`));
  }
  return new Promise((resolve, reject) => {
    const fields = new URLSearchParams();
    const writes: Promise<void>[] = [];
    const open = new Set<BusboyFileStream>();
    let failed = false;
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      // with the error: a stream destroyed without one after its last push leaves its pipeline waiting
      const stop = err instanceof Error ? err : new Error(String(err));
      for (const file of open) file.destroy(stop);
      parser.destroy(stop);
      if (!Buffer.isBuffer(body)) body.destroy(stop);
      // the caller removes what was written: only once nothing writes any more
      void Promise.allSettled(writes).then(() => reject(err));
    };
    const malformed = (err: unknown) => fail(new BodyError(400, `malformed multipart/form-data body: ${(err as Error)?.message ?? err}`));
    parser.on('field', (name, value, _nameTruncated, valueTruncated) => {
      if (valueTruncated) return fail(new BodyError(413, `the form field '${name}' is larger than ${limits.fieldSize} bytes`));
      fields.append(name, value);
    });
    parser.on('fieldsLimit', () => fail(new BodyError(413, `the form has more than ${limits.fields} fields`)));
    parser.on('filesLimit', () => fail(new BodyError(400, `the form has more than ${limits.files} file part${limits.files === 1 ? '' : 's'}`)));
    parser.on('error', malformed);
    if (options.file) {
      const to = options.file;
      parser.on('file', (field, stream, filename) => {
        open.add(stream);
        // the part's own failure (the body ended inside it) is the client's; the destination's is not
        stream.on('error', malformed);
        const written = pipeline(stream, to({ field, filename })).finally(() => open.delete(stream));
        written.catch(fail);
        writes.push(written);
      });
    }
    parser.on('finish', () => {
      Promise.all(writes).then(() => {
        if (!failed) resolve({ fields, files: writes.length });
      }, fail);
    });
    if (Buffer.isBuffer(body)) parser.end(body);
    else pipeline(body, parser).catch(fail);
  });
}

/** What a form may hold: token requests and the like, a few short fields. */
const FORM_LIMITS = { fieldSize: 64 * 1024, fields: 64, files: 0 };

/**
 * The request body's form fields: application/x-www-form-urlencoded, or multipart/form-data
 * (what a browser's FormData sends; the original's request.post() reads both, and
 * home-assistant-js-websocket posts its token requests that way). File parts are left out; a
 * multipart body that cannot be read has no fields.
 */
export async function parseFormBody(req: HttpRequest): Promise<URLSearchParams> {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (type.startsWith('application/x-www-form-urlencoded')) return new URLSearchParams(req.body.toString('utf8'));
  if (!type.startsWith('multipart/form-data')) return new URLSearchParams();
  return readMultipart(req.body, { contentType: req.headers['content-type'], limits: FORM_LIMITS }).then(
    (form) => form.fields,
    () => new URLSearchParams(),
  );
}
