import { request, type IncomingMessage } from 'node:http';

/**
 * The host journal through systemd-journal-gatewayd (supervisor-wire §9): HTTP over its Unix
 * socket, entries in the journal export format, the boot list and the syslog identifiers.
 */

export const JOURNAL_GATEWAYD_SOCKET = '/run/systemd-journal-gatewayd.sock';
/** The journal's "unbounded" entry count. */
export const LINES_MAX = '18446744073709551615';

/** The identifiers `/host/logs` shows by default: the host's system services on a plain Linux. */
export const DEFAULT_IDENTIFIERS = [
  'NetworkManager', 'bluetoothd', 'containerd', 'cron', 'dbus-broker', 'dbus-daemon', 'docker', 'dockerd', 'dropbear',
  'hearth', 'kernel', 'mount', 'os-agent', 'rauc', 'sshd', 'sudo', 'systemd', 'systemd-coredump', 'systemd-fsck',
  'systemd-growfs', 'systemd-hostnamed', 'systemd-journald', 'systemd-logind', 'systemd-networkd', 'systemd-resolved',
  'systemd-time-wait-sync', 'systemd-timesyncd', 'systemd-udevd', 'udisksd', 'wpa_supplicant',
];

export class JournalError extends Error {}

/** One entry with the fields the log formatters use. */
export interface JournalEntry {
  cursor: string;
  fields: Record<string, string>;
}

/** A streaming parser of the export format: `NAME=value\n`, or `NAME\n` + u64 LE length + bytes + `\n`; a blank line ends an entry. */
export class ExportParser {
  private buf: Buffer = Buffer.alloc(0);
  private fields: Record<string, string> = {};

  /** The entries completed by `chunk`. */
  push(chunk: Buffer): JournalEntry[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const out: JournalEntry[] = [];
    for (;;) {
      const nl = this.buf.indexOf(0x0a);
      if (nl < 0) break;
      if (nl === 0) {
        this.buf = this.buf.subarray(1);
        if (Object.keys(this.fields).length) out.push({ cursor: this.fields.__CURSOR ?? '', fields: this.fields });
        this.fields = {};
        continue;
      }
      const line = this.buf.subarray(0, nl);
      const eq = line.indexOf(0x3d);
      if (eq >= 0) {
        this.fields[line.subarray(0, eq).toString('utf8')] = line.subarray(eq + 1).toString('utf8');
        this.buf = this.buf.subarray(nl + 1);
        continue;
      }
      // a binary field: its length follows the name
      if (this.buf.length < nl + 1 + 8) break;
      const size = Number(this.buf.readBigUInt64LE(nl + 1));
      const start = nl + 1 + 8;
      if (this.buf.length < start + size + 1) break;
      this.fields[line.toString('utf8')] = this.buf.subarray(start, start + size).toString('utf8');
      this.buf = this.buf.subarray(start + size + 1);
    }
    return out;
  }

  /** What is left when the stream ends (an entry without its closing blank line). */
  end(): JournalEntry[] {
    const left = Object.keys(this.fields).length ? [{ cursor: this.fields.__CURSOR ?? '', fields: this.fields }] : [];
    this.fields = {};
    return left;
  }
}

export class JournalGateway {
  constructor(readonly socketPath: string = JOURNAL_GATEWAYD_SOCKET) {}

  /** A request to the gateway; its connection failure is the original's 400 text. */
  get(path: string, headers: Record<string, string>, timeoutMs?: number): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = request({ socketPath: this.socketPath, path, method: 'GET', headers, timeout: timeoutMs }, resolve);
      req.on('timeout', () => req.destroy(new JournalError('Unable to connect to systemd-journal-gatewayd')));
      req.on('error', () => reject(new JournalError('Unable to connect to systemd-journal-gatewayd')));
      req.end();
    });
  }

  private async text(path: string, accept: string): Promise<string> {
    const res = await this.get(path, { Accept: accept }, 20_000);
    const chunks: Buffer[] = [];
    for await (const c of res) chunks.push(c as Buffer);
    if (res.statusCode !== 200) throw new JournalError(`systemd-journal-gatewayd answered ${res.statusCode} to ${path}`);
    return Buffer.concat(chunks).toString('utf8');
  }

  /** Boot ids, oldest first (`/boots`, JSON records separated by RS, sorted by their index). */
  async boots(): Promise<string[]> {
    const text = await this.text('/boots', 'application/json-seq');
    const boots: { index: number; boot_id: string }[] = [];
    for (const part of text.split('\x1e')) {
      const trimmed = part.trim();
      if (!trimmed) continue;
      try {
        const b = JSON.parse(trimmed) as { index?: number; boot_id?: string };
        if (typeof b.boot_id === 'string') boots.push({ index: Number(b.index ?? 0), boot_id: b.boot_id });
      } catch {
        // a broken record is skipped, the others still count
      }
    }
    return boots.sort((a, b) => a.index - b.index).map((b) => b.boot_id);
  }

  /** The boot an offset names: 0 the current, negative that many back, positive from the oldest (1). */
  async bootAt(offset: number): Promise<string> {
    const ids = await this.boots();
    const i = offset - 1;
    if (i >= ids.length || Math.abs(i) > ids.length) throw new JournalError(`Logs only contain ${ids.length} boots`);
    return ids.at(i)!;
  }

  async identifiers(): Promise<string[]> {
    return (await this.text('/fields/SYSLOG_IDENTIFIER', 'text/plain')).split('\n').filter(Boolean);
  }

  /** `/entries` with field matches and a Range: the response, its body in the export format. */
  entries(matches: [string, string][], range: string, follow: boolean): Promise<IncomingMessage> {
    const query = new URLSearchParams(matches);
    if (follow) query.append('follow', '');
    return this.get(`/entries?${query.toString().replace(/follow=$/, 'follow')}`, { Accept: 'application/vnd.fdo.journal', Range: range });
  }
}
