// A CPU profile of this process over a measured window (the inspector's sampling profiler),
// summarised as the functions and files with the most self time.
import { Session } from 'node:inspector/promises';
import { findSourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface HotSpots {
  /** `12.3% fn (file:line)` by self time, idle excluded */
  functions: string[];
  /** `34.5% file` by self time */
  files: string[];
  /** `45.6% fn (file:line)` by total time (self plus callees), Hearth's own modules only */
  inclusive: string[];
  /** share of samples that were not idle */
  busy: number;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

/** The source line of a profiled position (tsx compiles each module to one line, with a source map). */
function sourceLine(url: string, line: number, column: number): number {
  try {
    const map = url.startsWith('file://') ? findSourceMap(url) : undefined;
    const entry = map?.findEntry(line, column) as { originalLine?: number } | undefined;
    if (entry && typeof entry.originalLine === 'number') return entry.originalLine + 1;
  } catch {
    // no map: the generated position is the best there is
  }
  return line + 1;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function shortUrl(url: string): string {
  if (!url) return '(native)';
  let path = url.startsWith('file://') ? fileURLToPath(url) : url;
  if (path.startsWith(ROOT)) path = path.slice(ROOT.length);
  const nm = path.lastIndexOf('node_modules/');
  if (nm >= 0) path = path.slice(nm + 'node_modules/'.length);
  return path;
}

/** Starts profiling; the returned function stops and summarises. */
export async function startProfile(intervalUs = 200): Promise<() => Promise<HotSpots>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = (await session.post('Profiler.stop')) as { profile: { nodes: ProfileNode[] } };
    await session.post('Profiler.disable');
    session.disconnect();
    return summarise(profile.nodes);
  };
}

function summarise(nodes: ProfileNode[], top = Number(process.env.BENCH_PROFILE_TOP ?? 12)): HotSpots {
  const byFn = new Map<string, number>();
  const byFile = new Map<string, number>();
  const parent = new Map<number, ProfileNode>();
  for (const n of nodes) for (const c of n.children ?? []) parent.set(c, n);
  const labels = new Map<string, string>();
  const label = (n: ProfileNode) => {
    const { functionName, url, lineNumber, columnNumber } = n.callFrame;
    const key = `${functionName}@${url}:${lineNumber}:${columnNumber}`;
    let l = labels.get(key);
    if (l === undefined) labels.set(key, (l = `${functionName || '(anonymous)'} (${shortUrl(url)}:${sourceLine(url, lineNumber, columnNumber)})`));
    return l;
  };
  let total = 0;
  let idle = 0;
  for (const n of nodes) {
    const hits = n.hitCount ?? 0;
    if (!hits) continue;
    const { functionName, url } = n.callFrame;
    if (functionName === '(idle)') {
      idle += hits;
      continue;
    }
    total += hits;
    const file = functionName.startsWith('(') ? functionName : shortUrl(url);
    let fn = functionName.startsWith('(') ? functionName : label(n);
    // a native function means little alone: name its JavaScript caller
    const up = parent.get(n.id);
    if (!url && !functionName.startsWith('(') && up) fn = `${fn} <- ${label(up)}`;
    byFn.set(fn, (byFn.get(fn) ?? 0) + hits);
    byFile.set(file, (byFile.get(file) ?? 0) + hits);
  }
  // total time: every sample counts once for each distinct Hearth function on its stack
  const byFnTotal = new Map<string, number>();
  const own = (n: ProfileNode) => n.callFrame.url.startsWith('file://') && !n.callFrame.url.includes('/node_modules/') && !n.callFrame.url.includes('/bench/');
  for (const n of nodes) {
    const hits = n.hitCount ?? 0;
    if (!hits || n.callFrame.functionName === '(idle)') continue;
    const seen = new Set<string>();
    for (let at: ProfileNode | undefined = n; at; at = parent.get(at.id)) if (own(at)) seen.add(label(at));
    for (const l of seen) byFnTotal.set(l, (byFnTotal.get(l) ?? 0) + hits);
  }
  const list = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => `${((100 * v) / total).toFixed(1)}% ${k}`);
  return { functions: list(byFn), files: list(byFile), inclusive: list(byFnTotal), busy: total / (total + idle) };
}

/** Notes lines for a result. */
export function hotSpotNotes(what: string, spots: HotSpots): string[] {
  return [
    `profile of ${what} (main thread busy in ${(100 * spots.busy).toFixed(0)}% of samples), self time by file: ${spots.files.slice(0, 8).join('; ')}`,
    `profile of ${what}, hottest functions (self): ${spots.functions.slice(0, 10).join('; ')}`,
    `profile of ${what}, Hearth functions by total time: ${spots.inclusive.slice(0, 12).join('; ')}`,
  ];
}
