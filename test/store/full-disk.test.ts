// A real full disk: the log lives on a small tmpfs that the test fills with a file and then
// frees, in a child process that is killed with SIGKILL at the end (needs root for mount).
import t from 'tap';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openEventLog } from '../../store/log.ts';
import type { EventRecord } from '../../store/types.ts';

const writer = fileURLToPath(new URL('./fixtures/full-disk-writer.ts', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));

interface Result {
  id: number;
  seq?: number;
  code?: string;
  message?: string;
}

/** A tmpfs of `size` mounted on a fresh directory, unmounted at teardown; undefined without the right to mount. */
function mountTmpfs(size: string): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-full-disk-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { encoding: 'utf8' });
  if (mounted.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  t.teardown(() => {
    spawnSync('umount', ['-l', dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Writes `path` until the file system is full; returns the bytes written. */
function fill(path: string): number {
  const fd = openSync(path, 'w');
  let written = 0;
  try {
    for (const chunk of [Buffer.alloc(1 << 20, 1), Buffer.alloc(4096, 1), Buffer.alloc(512, 1)]) {
      for (;;) {
        try {
          written += writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

class Writer {
  readonly said: string[] = [];
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #answers: ((value: any) => void)[] = [];
  readonly ready: Promise<void>;

  constructor(dir: string) {
    this.#child = spawn(process.execPath, ['--import=tsx', writer, dir], { cwd: root });
    let stderr = '';
    this.#child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    let started: () => void;
    let died: (err: Error) => void;
    this.ready = new Promise<void>((resolve, reject) => {
      started = resolve;
      died = reject;
    });
    this.#child.on('exit', (code, signal) => died(new Error(`writer exited with ${code ?? signal}: ${stderr}`)));
    createInterface({ input: this.#child.stdout }).on('line', (line) => {
      const message = JSON.parse(line);
      if (message.ready) started();
      else if ('say' in message) this.said.push(message.say);
      else this.#answers.shift()!(message);
    });
    t.teardown(() => this.kill());
  }

  request(cmd: Record<string, unknown>): Promise<any> {
    return new Promise((resolve) => {
      this.#answers.push(resolve);
      this.#child.stdin.write(JSON.stringify(cmd) + '\n');
    });
  }

  async append(ids: number[], size = 0): Promise<Result[]> {
    return (await this.request({ cmd: 'append', ids, size })).results;
  }

  kill(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.#child.once('exit', () => resolve());
      this.#child.kill('SIGKILL');
    });
  }
}

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

const mount = mountTmpfs('24m');
const skip = mount ? false : 'cannot mount a tmpfs here (needs root)';

t.test('a full disk fails the appends it cannot hold; once freed, appends work again without a restart', { skip }, async (t) => {
  if (!mount) return;
  const dir = join(mount, 'log');
  const w = new Writer(dir);
  await w.ready;

  const acked = new Map<number, number>(); // id -> seq
  const refused = new Set<number>();
  const note = (results: Result[]) => {
    for (const r of results) {
      if (r.seq !== undefined) acked.set(r.id, r.seq);
      else refused.add(r.id);
    }
  };

  const before = await w.append(range(1, 20), 100);
  note(before);
  t.equal(acked.size, 20, 'appends work while there is room');

  const filler = join(mount, 'filler');
  t.ok(fill(filler) > 0, 'the disk is full');

  // each append is larger than what is left of a page the log file already holds
  let id = 100;
  let firstFailure: Result | undefined;
  for (let i = 0; i < 20 && !firstFailure; i++) {
    const [r] = await w.append([id++], 16_000);
    note([r]);
    if (r.seq === undefined) firstFailure = r;
  }
  t.match(firstFailure, { code: 'HEARTH_LOG_WRITE_FAILED', message: /No space left on device/ }, 'an append fails on the full disk');
  const whileFull = await w.append(range(id, 5), 100);
  id += 5;
  note(whileFull);
  t.ok(
    whileFull.every((r) => r.seq === undefined && r.code === 'HEARTH_LOG_WRITE_FAILED'),
    'appends keep failing while the disk is full',
  );
  t.match(whileFull[0].message, /bytes free/, 'the error says why the log is not retried');
  t.match(await w.request({ cmd: 'snapshot' }), { ok: false, code: 'HEARTH_LOG_WRITE_FAILED', message: /bytes free/ }, 'so do snapshots');
  const readWhileFull = await w.request({ cmd: 'read' });
  t.same(
    readWhileFull.records.map((r: { id: number }) => r.id).sort((a: number, b: number) => a - b),
    [...acked.keys()].sort((a, b) => a - b),
    'reads still work while the disk is full, and hold only the acknowledged records',
  );
  t.equal(w.said.length, 1, 'one line says that writing failed');
  t.match(w.said[0], /writing to .* failed \(.*No space left on device.*\)/);

  unlinkSync(filler);
  const [first] = await w.append([id++], 100);
  note([first]);
  t.ok(first.seq !== undefined, 'the first append after the disk is freed succeeds, without a restart');
  const after = await w.append(range(id, 30), 100);
  id += 30;
  note(after);
  t.ok(after.every((r) => r.seq !== undefined), 'and so do the next ones');
  t.same(await w.request({ cmd: 'snapshot' }), { ok: true }, 'snapshots too');
  t.equal(w.said.length, 2);
  t.match(w.said[1], /writing works again after \d+ s; \d+ records were refused/, 'a line says that writing works again');

  const seqs = [...acked.values()];
  t.equal(new Set(seqs).size, seqs.length, 'no seq was given twice');
  const ordered = [...acked.entries()].sort((a, b) => a[0] - b[0]).map(([, seq]) => seq);
  t.same(ordered, [...ordered].sort((a, b) => a - b), 'seqs follow the order of the appends, gaps and all');

  // kill -9: nothing acknowledged may be lost, nothing refused may come back
  await w.kill();
  const log = await openEventLog({ path: dir, log: () => {} });
  t.teardown(() => log.close());
  const records: EventRecord[] = [];
  for await (const r of log.read()) records.push(r);
  const found = new Map(records.map((r) => [r.data.id as number, r.seq]));
  t.same(
    [...acked].filter(([i, seq]) => found.get(i) !== seq),
    [],
    `every acknowledged record (${acked.size}) is there after kill -9, under its seq`,
  );
  t.same(
    [...refused].filter((i) => found.has(i)),
    [],
    `none of the ${refused.size} refused records is`,
  );
  t.equal(records.length, acked.size, 'and nothing else');
  t.equal(log.lastSeq(), Math.max(...seqs), 'lastSeq is the last acknowledged seq');
  const viaIndex: number[] = [];
  for await (const r of log.readStreams('test/')) viaIndex.push(r.seq);
  t.same(viaIndex, records.map((r) => r.seq), 'the stream index agrees with the records');
  const { seq: _seq, ...again } = records[0];
  const [next] = await log.append([{ ...again, data: { id: -1 } }]);
  t.ok(next.seq > Math.max(...seqs), 'the reopened log continues after the last seq');
});
