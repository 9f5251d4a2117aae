import { gzip } from 'node:zlib';
import { promisify } from 'node:util';

const gzipAsync = promisify(gzip);

/** Large answers whose gzip is kept: all states, and a few single ones. */
const KEPT_PATHS = 8;

/** The smallest answer whose gzip is kept. */
const KEPT_MIN_CHARS = 64 * 1024;

/**
 * Gzip of answers. Dashboards poll the same large answer (all states): its gzip is kept for its
 * path until the answer changes, for a few paths only, the oldest dropped first.
 */
export class GzipCache {
  private readonly kept = new Map<string, { body: string; zipped: Buffer }>();

  /** The kept gzip of `body` at `path`, when it is the same answer as last time. */
  cached(path: string, body: string | Buffer): Buffer | undefined {
    const cached = this.kept.get(path);
    return cached && cached.body === body ? cached.zipped : undefined;
  }

  /** Gzips `body`, keeping the result when it is large. */
  async zip(path: string, body: string | Buffer): Promise<Buffer> {
    const zipped = await gzipAsync(typeof body === 'string' ? Buffer.from(body) : body);
    if (typeof body === 'string' && body.length >= KEPT_MIN_CHARS) this.keep(path, body, zipped);
    return zipped;
  }

  private keep(path: string, body: string, zipped: Buffer) {
    this.kept.delete(path);
    this.kept.set(path, { body, zipped });
    if (this.kept.size > KEPT_PATHS) this.kept.delete(this.kept.keys().next().value!);
  }
}
