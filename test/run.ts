// Runs the tap suite and ends with the line CI reads: `N passed, M failed`.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { FailureDigest } from './helpers/failure-digest.ts';

// tap compiles its Test class from the plugin list in .taprc; a fresh install still has the
// default one (with the ts-node plugin that cannot load TypeScript 7), so build it first —
// once per plugin list, and one build at a time: two runs rebuilding at once leave it broken
const STAMP = 'node_modules/.hearth-tap-build';
const LOCK = 'node_modules/.hearth-tap-build.lock';
const wanted = createHash('sha256').update(readFileSync('.taprc')).update(readFileSync('package-lock.json')).digest('hex');
const stamped = () => {
  try {
    return readFileSync(STAMP, 'utf8') === wanted;
  } catch {
    return false;
  }
};
if (!stamped()) {
  const until = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      if (Date.now() > until) rmSync(LOCK, { recursive: true, force: true });
      else spawnSync('sleep', ['0.2']);
    }
  }
  try {
    if (!stamped()) {
      const build = spawnSync('node_modules/.bin/tap', ['build'], { encoding: 'utf8' });
      if (build.status !== 0) {
        console.error(`tap build failed:\n${build.stdout}${build.stderr}`);
        console.log('0 passed, 1 failed (tap build failed)');
        process.exit(1);
      }
      writeFileSync(STAMP, wanted);
    }
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
const files = args.length ? args : ['test/**/*.test.ts'];
const child = spawn('node_modules/.bin/tap', files, { stdio: ['ignore', 'pipe', 'inherit'] });

let summary: { total: number; pass: number; fail: number; skip: number; todo: number } | undefined;
let tail = '';
const failures = new FailureDigest();
child.stdout.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk);
  const text = chunk.toString();
  tail = (tail + text).slice(-4096);
  failures.feed(text);
});
child.on('close', (code) => {
  const m = /# \{ ([^}]*) \}/.exec(tail);
  if (m) {
    const fields = Object.fromEntries(m[1].split(',').map((kv) => kv.trim().split(/:\s*/)).map(([k, v]) => [k, Number(v)]));
    summary = { total: fields.total ?? 0, pass: fields.pass ?? 0, fail: fields.fail ?? 0, skip: fields.skip ?? 0, todo: fields.todo ?? 0 };
  }
  if (!summary) {
    console.log(`0 passed, 1 failed (the test runner ended with code ${code} before reporting)`);
    process.exit(code || 1);
  }
  // CI may keep only the end of the output: repeat what failed just above the count
  const digest = failures.render();
  if (digest) console.log(digest);
  const extra = summary.skip || summary.todo ? `, ${summary.skip + summary.todo} skipped` : '';
  console.log(`${summary.pass} passed, ${summary.fail} failed${extra}`);
  process.exit(code ?? (summary.fail ? 1 : 0));
});
