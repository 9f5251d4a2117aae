import dnsPacket from 'dns-packet';
import type { Message } from './messages.ts';

/**
 * DNS over TCP: each message behind its two-byte length (RFC 1035 §4.2.2), split off and read
 * by dns-packet's streamDecode. A stream holding something dns-packet cannot read is not
 * worth following further: `push` throws and the connection is closed.
 */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0);

  /** Takes `chunk`; answers the messages it completes, in order. */
  push(chunk: Buffer): Message[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const out: Message[] = [];
    // streamDecode reads the length itself, so it needs at least those two bytes
    while (this.pending.length >= 2) {
      const message = dnsPacket.streamDecode(this.pending) as Message | null;
      if (!message) break;
      out.push(message);
      this.pending = this.pending.subarray(2 + dnsPacket.streamDecode.bytes);
    }
    return out;
  }
}
