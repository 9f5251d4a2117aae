/** Exact-size reads from a byte source (a Buffer, a Node stream, any (async) iterable of chunks). */
export type ByteSource = Uint8Array | AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

export class ByteReader {
  private readonly chunks: AsyncIterator<Uint8Array> | Iterator<Uint8Array>;
  private pending: Buffer[] = [];
  private pendingLength = 0;
  private ended = false;

  constructor(source: ByteSource) {
    if (source instanceof Uint8Array) this.chunks = [source][Symbol.iterator]();
    else if (Symbol.asyncIterator in source) this.chunks = source[Symbol.asyncIterator]();
    else this.chunks = source[Symbol.iterator]();
  }

  /** Up to `size` bytes; fewer only at the end of the source. */
  async read(size: number): Promise<Buffer> {
    while (this.pendingLength < size && !this.ended) {
      const next = await this.chunks.next();
      if (next.done) this.ended = true;
      else if (next.value.length > 0) {
        this.pending.push(Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength));
        this.pendingLength += next.value.length;
      }
    }
    const all = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingLength);
    const out = all.subarray(0, size);
    const rest = all.subarray(out.length);
    this.pending = rest.length > 0 ? [rest] : [];
    this.pendingLength = rest.length;
    return out;
  }

  /** Stops the underlying source early (a failed read should not leave a stream open). */
  async close(): Promise<void> {
    await this.chunks.return?.();
  }
}
