// How a fuzz run reports and how long it runs: failing cases one by one with their seed and the
// command that replays them, at most a few per kind of failure; the case and time budget, and the
// one case HEARTH_FUZZ_CASE replays.
import type { Tap } from './harness.ts';

/** One failing case, as reported. */
export interface Failure {
  caseId: string;
  route: string;
  input: string;
  problems: string[];
  serverLog?: string;
}

/** Reports failing cases one by one (at most a few per kind of failure), with seed and reproduction. */
export class Reporter {
  private readonly bySignature = new Map<string, string[]>();
  failures = 0;
  static readonly PER_SIGNATURE = 4;

  constructor(
    private readonly t: Tap,
    readonly seed: number,
    readonly file: string,
  ) {}

  reproduce(caseId: string): string {
    return `HEARTH_FUZZ_SEED=${this.seed} HEARTH_FUZZ_CASE='${caseId}' npm test -- ${this.file}`;
  }

  fail(f: Failure): void {
    this.failures++;
    const signature = `${f.route} | ${f.problems.map((p) => p.replace(/\d+/g, 'N').slice(0, 80)).join('; ')}`;
    const seen = this.bySignature.get(signature) ?? [];
    seen.push(f.caseId);
    this.bySignature.set(signature, seen);
    if (seen.length > Reporter.PER_SIGNATURE) return;
    this.t.fail(`[seed ${this.seed}] ${f.caseId} ${f.route}: ${f.problems.join('; ')}`, {
      // the test's own stack says nothing about the server
      at: null,
      seed: this.seed,
      case: f.caseId,
      input: f.input,
      ...(f.serverLog ? { serverLog: f.serverLog } : {}),
      reproduce: this.reproduce(f.caseId),
    });
  }

  /** One more line for each kind of failure seen more often than reported. */
  finish(): void {
    for (const [signature, cases] of this.bySignature) {
      if (cases.length <= Reporter.PER_SIGNATURE) continue;
      this.t.fail(`[seed ${this.seed}] ${cases.length - Reporter.PER_SIGNATURE} more cases failed like this: ${signature}`, {
        at: null,
        cases: cases.slice(Reporter.PER_SIGNATURE, Reporter.PER_SIGNATURE + 30),
      });
    }
  }
}

/** How many random cases and how long: HEARTH_FUZZ_CASES, HEARTH_FUZZ_SECONDS. */
export function budget(defaultCases: number, defaultSeconds: number): { cases: number; deadline: number } {
  const cases = Number(process.env.HEARTH_FUZZ_CASES || defaultCases);
  const seconds = Number(process.env.HEARTH_FUZZ_SECONDS || defaultSeconds);
  return { cases, deadline: Date.now() + seconds * 1000 };
}

/** Only this case (HEARTH_FUZZ_CASE), when replaying one. */
export function selected(caseId: string): boolean {
  const only = process.env.HEARTH_FUZZ_CASE;
  return !only || only === caseId;
}
