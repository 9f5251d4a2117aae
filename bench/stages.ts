// Main-thread time per POST /api/states write, by stage: Hearth under wrk load (as post-states
// drives it) with the inspector's sampling profiler on; each sample is given to the first stage
// found walking up its stack. The table in docs/performance.md ("CPU per write, by stage") comes
// from here: `node --import=tsx bench/stages.ts [--fast]`. The profiler slows the server by
// ~20%, so read the shares; the µs are the profiled run's.
import { Session } from 'node:inspector/promises';
import { removeDir } from './common.ts';
import { FAST_CONFIG, startBenchHearth } from './hearth.ts';
import { CONNECTIONS, IDS } from './post-states.ts';
import { timedLoad } from './wrk.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  hitCount?: number;
  children?: number[];
}

/** Stages by the frames that mark them, tried from the sampled frame up to the root. */
const STAGES: [RegExp, string][] = [
  [/^readJson |^validEntityId |^stateString /, 'body parse and validation'],
  [/^authenticate /, 'auth check'],
  [/^newContext /, 'context id (ULID)'],
  [/^decide /, 'actor: wake, xstate send, the entity rules'],
  [/^append store/, 'record encode, index keys, submit'],
  [/^_put |^put |^_write |^write abstract|^batch |^_chainedBatch /, 'LevelDB batch, main-thread side'],
  [/^#publish |^#flush /, 'group commit, projections, bus'],
  [/^stateJson /, "answer: the state's wire JSON"],
  [/^send gateway/, 'answer: headers and the socket write'],
  [/^\(garbage collector\)|^\(program\)/, 'GC and V8 runtime'],
  [/^\(idle\)/, 'idle'],
  [/gateway\/http\.ts|routes\/api\.ts|^write entities|^commit entities/, 'router, handler and the promise plumbing'],
];

const fast = process.argv.includes('--fast');
const h = await startBenchHearth(fast ? { config: FAST_CONFIG } : {});
const load = { port: h.port, connections: CONNECTIONS, warmupMs: 1000, durationMs: 5000, request: { kind: 'post-state' as const, token: h.token, ids: IDS } };
await timedLoad({ ...load, durationMs: 1000 });
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 200 });
await session.post('Profiler.start');
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const result = await timedLoad(load);
const { profile } = (await session.post('Profiler.stop')) as { profile: { nodes: ProfileNode[] } };
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);

const parent = new Map<number, ProfileNode>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n);
const name = (n: ProfileNode) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}`;
const byStage = new Map<string, number>();
let all = 0;
for (const n of profile.nodes) {
  const hits = n.hitCount ?? 0;
  if (!hits) continue;
  all += hits;
  let stage = 'other';
  find: for (let at: ProfileNode | undefined = n; at; at = parent.get(at.id)) {
    for (const [re, s] of STAGES) {
      if (re.test(name(at))) {
        stage = s;
        break find;
      }
    }
  }
  byStage.set(stage, (byStage.get(stage) ?? 0) + hits);
}
// writes over the whole profiled window (wrk's warm-up second included)
const writes = result.rps * seconds;
const idle = byStage.get('idle') ?? 0;
const busy = all - idle;
const mainUs = ((busy / all) * seconds * 1e6) / writes;
console.log(
  `${fast ? 'fast' : 'durable'} commit: ${Math.round(result.rps)} writes/s under the profiler, ` +
    `${((cpu.user + cpu.system) / writes).toFixed(1)} µs of process CPU per write, main thread busy ${((100 * busy) / all).toFixed(0)}% ` +
    `(${mainUs.toFixed(1)} µs per write)\n`,
);
console.log('| stage | µs | share |\n|---|---:|---:|');
for (const [stage, hits] of [...byStage].sort((a, b) => b[1] - a[1])) {
  if (stage !== 'idle') console.log(`| ${stage} | ${((mainUs * hits) / busy).toFixed(1)} | ${((100 * hits) / busy).toFixed(1)}% |`);
}
await h.hearth.stop();
await removeDir(h.dataDir);
process.exit(0);
