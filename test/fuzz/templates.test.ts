// Fuzzes the bounds of template renders: generated programs (template-programs.ts) compose every
// function that can grow a value, with sizes around the limits, in loops, namespaces, recursive
// macros and block filters. Each render must give output within the output limit or a template
// error, within its time limit, never a JavaScript exception, and the process must not grow
// past a bound. Renders run in a worker thread, so one that never ended is reported, not waited on.
// The seed is fixed so CI is reproducible: HEARTH_FUZZ_SEED=<seed> runs another, HEARTH_FUZZ_CASE=<case
// id> replays one case, HEARTH_FUZZ_CASES and HEARTH_FUZZ_SECONDS change how many.
import t from 'tap';
import { Worker } from 'node:worker_threads';
import { DEFAULT_LIMITS } from '../../actors/templates/budget.ts';
import { Reporter, budget } from './report.ts';
import { caseRng, fuzzSeed } from './rng.ts';
import { ProgramGenerator } from './template-programs.ts';
import type { RenderAnswer } from './template-renderer.ts';

const FILE = 'test/fuzz/templates.test.ts';
const DEFAULT_SEED = 2025;
/**
 * What a render may run past its time limit: the step it is in ends first (alone, ~150 ms at
 * most), on a machine that may be busy and collecting the garbage of the renders before.
 */
const LATE_MS = 2000;
/** A render that has not answered by then never will: its worker is ended. */
const HUNG_MS = 20_000;
/**
 * The renderer's heap: what one render keeps alive must fit in it (a value past the limit, such
 * as the zfill bomb's 300 million characters, does not), or the renderer dies and the case fails.
 */
const HEAP_MIB = 256;
/** How much the process may grow over the run: the renderer's heap, its garbage and the engine's own. */
const RSS_GROWTH_MIB = 512;

type Outcome = RenderAnswer | { hung: true } | { died: string };

/** A worker thread that renders one template at a time. */
class Renderer {
  private worker!: Worker;
  private pending: ((outcome: Outcome) => void) | undefined;

  constructor() {
    this.start();
  }

  private start(): void {
    const entry = new URL('./template-renderer.ts', import.meta.url).href;
    // a worker does not inherit the TypeScript loader: the bootstrap registers it first
    this.worker = new Worker(`import('tsx/esm/api').then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`, {
      eval: true,
      resourceLimits: { maxOldGenerationSizeMb: HEAP_MIB },
    });
    this.worker.on('message', (a: RenderAnswer) => this.settle(a));
    this.worker.on('error', (err) => this.settle({ died: err.message }));
    this.worker.on('exit', (code) => this.settle({ died: `the worker exited with ${code}` }));
  }

  private settle(outcome: Outcome): void {
    const p = this.pending;
    this.pending = undefined;
    p?.(outcome);
  }

  async render(template: string, hungMs = HUNG_MS): Promise<Outcome> {
    const answer = new Promise<Outcome>((resolve) => (this.pending = resolve));
    const timer = setTimeout(() => this.settle({ hung: true }), hungMs);
    this.worker.postMessage(template);
    const outcome = await answer;
    clearTimeout(timer);
    if ('hung' in outcome || 'died' in outcome) {
      this.worker.removeAllListeners();
      await this.worker.terminate();
      this.start();
    }
    return outcome;
  }

  stop(): Promise<number> {
    this.worker.removeAllListeners();
    return this.worker.terminate();
  }
}

const MiB = 2 ** 20;

function problemsOf(outcome: Outcome, rssGrowth: number): string[] {
  if ('hung' in outcome) return [`no answer within ${HUNG_MS} ms: the render never ended`];
  if ('died' in outcome) return [`the renderer died: ${outcome.died}`];
  const problems: string[] = [];
  if (outcome.ms > DEFAULT_LIMITS.timeMs + LATE_MS) problems.push(`took ${Math.round(outcome.ms)} ms (limit ${DEFAULT_LIMITS.timeMs} ms)`);
  if (outcome.ok && outcome.length! > DEFAULT_LIMITS.outputChars) problems.push(`rendered ${outcome.length} characters, past the output limit`);
  if (outcome.kind === 'fault') problems.push(`a JavaScript exception: ${outcome.error}`);
  if (rssGrowth > RSS_GROWTH_MIB * MiB) problems.push(`the process grew by ${Math.round(rssGrowth / MiB)} MiB (bound ${RSS_GROWTH_MIB} MiB)`);
  return problems;
}

t.test('generated template programs stay within their bounds', async (t) => {
  const seed = process.env.HEARTH_FUZZ_SEED ? fuzzSeed() : DEFAULT_SEED;
  t.comment(`template fuzz seed ${seed} (replay: HEARTH_FUZZ_SEED=${seed} npm test -- ${FILE})`);
  const report = new Reporter(t, seed, FILE);
  const renderer = new Renderer();
  t.teardown(() => renderer.stop());
  // the worker's start (loading the engine) is no render's growth
  const warm = await renderer.render('{{ 1 }}', 120_000);
  t.same(warm, { ok: true, length: 1, ms: (warm as RenderAnswer).ms }, 'the renderer renders');
  const baseline = process.memoryUsage().rss;
  const { cases, deadline } = budget(400, 60);
  const kinds = new Map<string, number>();
  let ran = 0;
  let slowest = 0;
  let peak = baseline;
  // a case's program depends on the seed and its id alone: a replay runs just that one
  const only = process.env.HEARTH_FUZZ_CASE;
  for (let i = 0; only ? i < 1 : i < cases && Date.now() < deadline; i++) {
    const id = only ?? `template-${i}`;
    const template = new ProgramGenerator(caseRng(seed, id)).program();
    const outcome = await renderer.render(template);
    const rss = process.memoryUsage().rss;
    peak = Math.max(peak, rss);
    ran++;
    const kind = 'hung' in outcome ? 'hung' : 'died' in outcome ? 'died' : outcome.ok ? 'ok' : outcome.kind!;
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    if ('ms' in outcome) slowest = Math.max(slowest, outcome.ms);
    const problems = problemsOf(outcome, rss - baseline);
    if (problems.length) report.fail({ caseId: id, route: 'render', input: template.length > 2000 ? `${template.slice(0, 2000)}…` : template, problems });
  }
  report.finish();
  t.comment(`ran ${ran} programs with seed ${seed}: ${[...kinds].map(([k, n]) => `${n} ${k}`).join(', ')}; slowest ${Math.round(slowest)} ms; peak growth ${Math.round((peak - baseline) / MiB)} MiB`);
  if (!only) {
    // a generator that never reaches a bound, or never renders, would test nothing
    t.ok((kinds.get('limit') ?? 0) > 0, 'some programs were stopped by a bound');
    t.ok((kinds.get('ok') ?? 0) > 0, 'some programs rendered');
  }
  if (!report.failures) t.pass(`${ran} programs rendered within their bounds`);
});
