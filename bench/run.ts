// `npm run bench [-- name...] [--profile] [--write]`: runs the benchmarks (all, or the named
// ones), prints each figure beside its raw baseline, and after a full run rewrites the generated
// part of docs/performance.md (between the bench markers; the rest of the file is kept).
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { machine, num, printResult, ratioText, type BenchOptions, type BenchResult, type Machine, type Row } from './common.ts';

type Bench = { name: string; module: string; what: string };

/** In run order; each module exports `run(options)` and runs alone when started directly. */
export const BENCHES: Bench[] = [
  { name: 'post-states', module: './post-states.ts', what: 'POST /api/states writes/s vs raw uWS' },
  { name: 'router', module: './router.ts', what: 'the Router alone vs raw uWS (what every request pays)' },
  { name: 'get-states', module: './get-states.ts', what: 'GET /api/states and get_states at 10k vs JSON.stringify' },
  { name: 'fanout', module: './fanout.ts', what: 'one change to 500 subscribe_entities subscribers vs uWS publish' },
  { name: 'log-append', module: './appends.ts', what: 'log appends/s vs raw LevelDB batches' },
  { name: 'replay', module: './replay.ts', what: 'start-up replay of 1M events vs raw LevelDB iteration' },
  { name: 'memory', module: './memory.ts', what: 'memory per entity at 100k vs a plain Map' },
  { name: 'history', module: './history.ts', what: 'one day of one entity among 10k from a 1M-record log (HEARTH_HISTORY_RECORDS) vs a raw LevelDB range read' },
  { name: 'area-call', module: './area-call.ts', what: 'light.toggle by area_id over 1,000 lights (calls/s, p99) vs raw LevelDB sync batches of 1,000 records' },
  { name: 'templates', module: './templates.ts', what: 'template renders/s (100 states() lookups) vs plain Map lookups' },
  { name: 'sentences', module: './sentences.ts', what: 'sentences recognised/s with 10k entity names and 500 custom templates vs a whole-sentence Map lookup' },
  { name: 'webhook', module: './webhook.ts', what: 'companion-app update_sensor_states batches of 20 sensors/s, plaintext and encrypted, vs raw uWS (fixed answer; with secretbox open/seal)' },
  { name: 'export', module: './export.ts', what: 'POST /api/states writes/s with the log exported to NATS JetStream vs export off (≤ 10% cost), records/s exported, lag and drain' },
  { name: 'replica', module: './replica.ts', what: 'read replicas: write -> replica subscriber p50/p99 vs the primary\'s own and raw NATS; catch-up of 1M records (HEARTH_REPLICA_RECORDS) vs a raw JetStream consumer and raw LevelDB; start from a snapshot' },
  { name: 'core-backup', module: './core-backup.ts', what: 'the log exported for a backup and restored from it, 1M events (HEARTH_BACKUP_RECORDS), vs a raw LevelDB iterate + batch write' },
  { name: 'backup', module: './backup.ts', what: 'a compressed backup of a core log of 1M events (HEARTH_BACKUP_RECORDS) and 1 GiB of app data (HEARTH_BACKUP_APP_BYTES) vs tar -czf of the same files' },
  { name: 'mqtt-ingest', module: './mqtt-ingest.ts', what: 'MQTT state messages handled/s from 1,000 zigbee2mqtt-like devices (5,000 sensors) over Mosquitto, and message → subscribe_entities p99, vs a raw MQTT.js subscriber' },
  { name: 'sustained', module: './sustained.ts', what: '100k entities, 10k writes/s for 60 s, 100 subscribe_entities clients' },
];

const DOC = fileURLToPath(new URL('../docs/performance.md', import.meta.url));
const BEGIN = '<!-- bench:begin — written by `npm run bench`; edit outside these markers -->';
const END = '<!-- bench:end -->';

function usage(): never {
  console.log(`usage: npm run bench [-- <name>...] [--profile] [--write]\n  names: ${BENCHES.map((b) => b.name).join(', ')}`);
  process.exit(2);
}

const args = process.argv.slice(2);
const flags = new Set(args.filter((a) => a.startsWith('--')));
const names = args.filter((a) => !a.startsWith('--'));
for (const f of flags) if (f !== '--profile' && f !== '--write' && f !== '--help') usage();
if (flags.has('--help')) usage();
for (const n of names) if (!BENCHES.some((b) => b.name === n)) usage();
const chosen = names.length ? BENCHES.filter((b) => names.includes(b.name)) : BENCHES;
const options: BenchOptions = { profile: flags.has('--profile') };

const m = machine();
const loadBefore = os.loadavg();
console.log(`Hearth benchmarks: ${chosen.map((b) => b.name).join(', ')}${options.profile ? ' (profiling the server side)' : ''}`);
console.log(`${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, Node ${m.node}, ${m.kernel}; temp dir ${m.tmpdir} on ${m.fs}`);

const started = performance.now();
const results: BenchResult[] = [];
const failures: { name: string; error: string }[] = [];
for (const b of chosen) {
  const t0 = performance.now();
  try {
    const mod = (await import(b.module)) as { run(options: BenchOptions): Promise<BenchResult> };
    const r = await mod.run(options);
    r.seconds = (performance.now() - t0) / 1000;
    results.push(r);
    printResult(r);
  } catch (err) {
    const error = (err as Error)?.stack ?? String(err);
    failures.push({ name: b.name, error });
    console.log(`\n== ${b.name} FAILED after ${((performance.now() - t0) / 1000).toFixed(0)} s\n${error}`);
  }
}
const seconds = (performance.now() - started) / 1000;
const loadAfter = os.loadavg();

console.log(`\n== summary (${seconds.toFixed(0)} s)`);
for (const r of results) {
  for (const row of r.rows) {
    const verdict = row.target ? (row.met ? 'met' : 'MISSED') : '';
    console.log(`  ${`${r.name}: ${row.label}`.padEnd(72)} ${`${num(row.value)} ${row.unit}`.padStart(22)} ${ratioText(row.ratio).padStart(7)} ${row.target ?? ''} ${verdict}`);
  }
}
for (const f of failures) console.log(`  ${f.name}: FAILED`);

const full = chosen.length === BENCHES.length && failures.length === 0;
if (full || flags.has('--write')) {
  await writeDoc(results, failures, m, seconds, loadBefore, loadAfter, full);
  console.log(`\nwrote ${DOC}`);
} else {
  console.log('\n(docs/performance.md is rewritten after a full run without failures, or with --write)');
}
process.exit(failures.length ? 1 : 0);

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function value(row: Row): string {
  return `${num(row.value)} ${row.unit}`;
}

async function writeDoc(results: BenchResult[], failures: { name: string; error: string }[], m: Machine, seconds: number, before: number[], after: number[], full: boolean) {
  const lines: string[] = [];
  lines.push(BEGIN, '');
  lines.push(`Last ${full ? 'full ' : 'partial '}run: ${m.date} (${Math.round(seconds)} s${options.profile ? ', with the CPU profiler attached' : ''}).`, '');
  lines.push('| machine | |', '|---|---|');
  lines.push(`| CPU | ${cell(m.cpu)} × ${m.cores} cores |`);
  lines.push(`| memory | ${m.memoryGiB} GiB |`);
  lines.push(`| Node.js | ${m.node} |`);
  lines.push(`| kernel | ${cell(m.kernel)} |`);
  lines.push(`| temp dir (data dirs) | \`${m.tmpdir}\` on ${cell(m.fs)} |`);
  lines.push(`| load average (1 min) | ${before[0].toFixed(2)} before, ${after[0].toFixed(2)} after (the box is shared; the load generator runs on it too) |`);
  lines.push('');
  lines.push('Ratios compare with the raw baseline measured in the same run: for rates Hearth ÷ raw, for times and memory raw ÷ Hearth, so 1.00× is as fast (or as small) as raw and less is slower.', '');
  lines.push('| benchmark | figure | Hearth | raw baseline | ratio | target | |', '|---|---|---:|---:|---:|---|---|');
  for (const r of results) {
    for (const row of r.rows) {
      const base = row.baseline ? `${num(row.baseline.value)} ${row.unit} (${cell(row.baseline.label)})` : '';
      const verdict = row.target ? (row.met ? 'met' : '**missed**') : '';
      lines.push(`| ${r.name} | ${cell(row.label)} | ${value(row)} | ${base} | ${ratioText(row.ratio)} | ${cell(row.target ?? '')} | ${verdict} |`);
    }
  }
  for (const f of failures) lines.push(`| ${f.name} | failed: ${cell(f.error.split('\n')[0])} | | | | | |`);
  lines.push('');
  for (const r of results) {
    lines.push(`### ${r.title}`, '', `\`npm run bench -- ${r.name}\` (${Math.round(r.seconds ?? 0)} s)`, '');
    for (const row of r.rows) {
      const base = row.baseline ? ` vs ${row.baseline.label} ${num(row.baseline.value)} ${row.unit} (${ratioText(row.ratio)})` : '';
      const target = row.target ? `; target ${row.target}: ${row.met ? 'met' : '**missed**'}` : '';
      lines.push(`- **${row.label}**: ${value(row)}${base}${target}${row.detail ? `. ${row.detail}` : ''}`);
    }
    for (const note of r.notes) lines.push(`- ${note}`);
    lines.push('');
  }
  lines.push(END);
  const generated = lines.join('\n');

  let doc: string;
  if (existsSync(DOC)) {
    const old = await readFile(DOC, 'utf8');
    const a = old.indexOf(BEGIN);
    const z = old.indexOf(END);
    doc = a >= 0 && z > a ? old.slice(0, a) + generated + old.slice(z + END.length) : `${old.trimEnd()}\n\n${generated}\n`;
  } else {
    doc = `# Performance\n\nFigures of \`npm run bench\`, each beside a raw baseline measured in the same run.\n\n${generated}\n`;
  }
  await writeFile(DOC, doc);
}
