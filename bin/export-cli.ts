// `hearth export status --data DIR`: the NATS exporter's position, the log's last seq, the lag.
//
// The running exporter writes <data>/export-nats.json at most once a second (and when it
// stops). While Hearth runs (its log socket answers) the numbers are that file's, at most a
// second old. While Hearth is stopped the log's last seq is read from the log itself and the
// position is the one the exporter last wrote (what the stream held when Hearth stopped).
import { readFile, access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openEventLog } from '../store/log.ts';
import { probeLogSocket } from '../store/log-socket.ts';
import { isoformat } from '../machines/python/isoformat.ts';
import { STATUS_FILE, type ExportStatus } from '../actors/export/export-status.ts';

const USAGE = `usage: hearth export status [--data DIR] [--json]

Prints the NATS exporter's position (every record up to it is in the JetStream stream), the
log's last sequence number and the lag between them. Works while Hearth runs (numbers at most
a second old) and while it is stopped (the log's last seq read from the log).

  --data DIR   data directory (default: $HEARTH_DATA or ./data)
  --json       one JSON object instead of text
`;

export async function exportMain(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s), err: (s: string) => void = (s) => process.stderr.write(s)): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { data: { type: 'string', short: 'd' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  } catch (e) {
    err(`hearth export: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out(USAGE);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] !== 'status') {
    err(`hearth export: ${positionals.length === 0 ? 'give a command' : `unknown export command ${JSON.stringify(positionals.join(' '))}`} (known: status)\n${USAGE}`);
    return 2;
  }
  const dataDir = resolve(values.data ?? process.env.HEARTH_DATA ?? './data');
  let status: ExportStatus;
  try {
    status = JSON.parse(await readFile(join(dataDir, STATUS_FILE), 'utf8')) as ExportStatus;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    err(
      code === 'ENOENT'
        ? `hearth export: no NATS export in ${dataDir} (no ${STATUS_FILE}: recorder: export: nats: is not configured there, or Hearth never ran with it)\n`
        : `hearth export: cannot read ${join(dataDir, STATUS_FILE)}: ${(e as Error).message}\n`,
    );
    return 1;
  }
  const running = await probeLogSocket(join(dataDir, 'hearth.sock'));
  let lastSeq = status.last_seq;
  if (!running) {
    const logPath = join(dataDir, 'log');
    try {
      await access(join(logPath, 'CURRENT'));
      const log = await openEventLog({ path: logPath });
      try {
        lastSeq = log.lastSeq();
      } finally {
        await log.close();
      }
    } catch (e) {
      err(`hearth export: cannot read the log in ${logPath}: ${(e as Error).message}\n`);
      return 1;
    }
  }
  const lag = Math.max(0, lastSeq - status.acked_seq);
  const result = { exporter: status.exporter, stream: status.stream, servers: status.servers, hearth: running ? 'running' : 'stopped', position: status.acked_seq, last_seq: lastSeq, lag, connected: running ? status.connected : false, updated: isoformat(status.updated) };
  if (values.json) out(JSON.stringify(result) + '\n');
  else {
    out(
      [
        `exporter:  nats, stream ${status.stream} on ${status.servers.join(', ')}`,
        `hearth:    ${running ? `running (${status.connected ? 'connected' : 'NATS unreachable'}; numbers of ${result.updated})` : `stopped (position as of ${result.updated})`}`,
        `position:  ${status.acked_seq}`,
        `last seq:  ${lastSeq}`,
        `lag:       ${lag}`,
      ].join('\n') + '\n',
    );
  }
  return 0;
}
