import t from 'tap';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openEventLog } from '../../store/log.ts';
import type { EventRecord } from '../../store/types.ts';

const writer = fileURLToPath(new URL('./fixtures/crash-writer.ts', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs the writer on `dir`, SIGKILLs it `afterMs` after it is ready, and returns the seqs it printed. */
function appendUntilKilled(dir: string, afterMs: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import=tsx', writer, dir], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let timer: NodeJS.Timeout | undefined;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (!timer && out.startsWith('ready\n')) timer = setTimeout(() => child.kill('SIGKILL'), afterMs);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') return reject(new Error(`writer exited with ${code ?? signal} before the kill: ${err}`));
      // a line cut off by the kill is not an acknowledgement
      const lines = out.split('\n').slice(1, -1);
      resolve(lines.map(Number));
    });
  });
}

t.test('every acknowledged durable append survives kill -9, with no gap', async (t) => {
  const dir = t.testdir();
  let acknowledged = 0;
  for (const round of [1, 2]) {
    const printed = await appendUntilKilled(dir, 300);
    t.ok(printed.length > 0, `round ${round}: the writer acknowledged ${printed.length} appends before the kill`);
    t.ok(printed.every((s) => Number.isInteger(s) && s > acknowledged), 'printed seqs continue the log');
    t.equal(new Set(printed).size, printed.length, 'no seq acknowledged twice');

    const log = await openEventLog({ path: dir });
    const lastSeq = log.lastSeq();
    const maxPrinted = Math.max(...printed);
    t.ok(lastSeq >= maxPrinted, `lastSeq ${lastSeq} covers the last acknowledged seq ${maxPrinted}`);

    const records: EventRecord[] = [];
    for await (const record of log.read()) records.push(record);
    const seqs = records.map((r) => r.seq);
    const contiguous = seqs.every((s, i) => s === i + 1);
    t.ok(contiguous && seqs.length === lastSeq, `seqs are 1..${lastSeq} without a gap`);
    const present = new Set(seqs);
    const missing = printed.filter((s) => !present.has(s));
    t.same(missing, [], 'every acknowledged seq is present');
    t.ok(
      records.every((r) => r.type === 'state_changed' && r.data.entity_id === r.stream.slice('entity/'.length)),
      'records parse and are whole',
    );

    // the indexes were written in the same batches, so they agree with the records
    const perStream = new Map<string, number>();
    for (const r of records) perStream.set(r.stream, (perStream.get(r.stream) ?? 0) + 1);
    let indexAgrees = true;
    for (const [stream, count] of perStream) {
      let viaStream = 0;
      for await (const _ of log.read({ stream })) viaStream++;
      let viaHistory = 0;
      for await (const _ of log.history({ entityId: stream.slice('entity/'.length) })) viaHistory++;
      if (viaStream !== count || viaHistory !== count) indexAgrees = false;
    }
    t.ok(indexAgrees, 'stream and history indexes match the records');
    acknowledged = lastSeq;
    await log.close();
  }
});
