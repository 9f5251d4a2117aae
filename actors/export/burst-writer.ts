// A burst of JetStream publishes as one piece of NATS protocol text.
//
// nats.js's publish() costs several µs a message (a headers object encoded on its own, the
// payload and the HPUB line each run through a TextEncoder, four buffers queued and copied again
// at the flush): as much as the rest of the exporter together. A burst is written here as one
// string of HPUB frames (the protocol's `HPUB <subject> [reply] <header bytes> <total bytes>`,
// then `NATS/1.0` headers, the payload, CRLF) and handed to the connection's protocol handler
// in one call. That handler (nats.js 2.x's `protocol.sendCommand`) is not part of nats.js's
// typed API: where it is missing, each message goes through publish() as before.

import { headers as natsHeaders, type NatsConnection } from 'nats';

interface ProtocolHandler {
  sendCommand(cmd: string): void;
}

export interface Publish {
  subject: string;
  /** the reply subject for JetStream's ack, if this message asks for one */
  reply?: string;
  /** header name -> value (NATS/1.0 headers) */
  headers: ReadonlyArray<readonly [string, string]>;
  payload: string;
}

export class BurstWriter {
  readonly #nc: NatsConnection;
  readonly #protocol: ProtocolHandler | undefined;
  #parts: string[] = [];

  /** `raw: false` always goes through nats.js's publish() (tests compare both ways). */
  constructor(nc: NatsConnection, raw = true) {
    this.#nc = nc;
    const protocol = (nc as unknown as { protocol?: Partial<ProtocolHandler> }).protocol;
    this.#protocol = raw && typeof protocol?.sendCommand === 'function' ? (protocol as ProtocolHandler) : undefined;
  }

  /** Adds a message to the burst; throws when it is over the server's max_payload. */
  add(message: Publish): void {
    if (!this.#protocol) {
      const h = natsHeaders();
      for (const [name, value] of message.headers) h.set(name, value);
      this.#nc.publish(message.subject, message.payload, { headers: h, reply: message.reply });
      return;
    }
    let head = 'NATS/1.0\r\n';
    for (const [name, value] of message.headers) head += `${name}: ${value}\r\n`;
    head += '\r\n';
    // header names and values here are ASCII: their length is their size in bytes
    const size = head.length + Buffer.byteLength(message.payload);
    const max = this.#nc.info?.max_payload;
    if (max !== undefined && size > max) throw new Error(`a message of ${size} bytes is over the server's max_payload (${max} bytes)`);
    this.#parts.push(`HPUB ${message.subject}${message.reply ? ` ${message.reply}` : ''} ${head.length} ${size}\r\n`, head, message.payload, '\r\n');
  }

  /** Sends what was added since the last flush, in one write. */
  flush(): void {
    if (this.#parts.length === 0) return;
    const text = this.#parts.join('');
    this.#parts = [];
    this.#protocol!.sendCommand(text);
  }
}
