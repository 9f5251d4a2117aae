import v8 from 'node:v8';
import vm from 'node:vm';
import { RenderLimitError, TemplateError } from './errors.ts';
import { argument, type FilterFn, type RenderEnv, type TestFn } from './render-env.ts';
import { TextBuilder, budget } from './budget.ts';
import { str, tuple } from './values.ts';
import { UnsupportedPattern, pythonPattern } from '../../machines/python/regex.ts';

/**
 * The original's regex functions on JavaScript's RegExp, with Python's pattern syntax translated
 * (machines/python/regex.ts: `(?P<name>...)`, `\A`, `\Z`, leading inline flags, `{,n}`) and Python's
 * answers (match anchors at the start, findall gives groups, `\1` and `\g<name>` in
 * replacements).
 *
 * Backtracking: V8 is told to switch a pattern to its linear-time engine once it backtracks
 * excessively (a process-wide safety net that changes no result), so `(a+)+$` cannot hold the
 * loop. Patterns that engine cannot run (backreferences, lookarounds) run in a vm context whose
 * timeout interrupts them; that costs a fraction of a millisecond, so only they pay it.
 */

v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

/** The longest text a regex function takes. */
const MAX_INPUT = 256 * 1024;

interface Compiled {
  re: RegExp;
  /** needs the interruptible path */
  guarded: boolean;
}

const cache = new Map<string, Compiled>();
const MAX_CACHED_PATTERN = 4096;

function regexError(message: string): TemplateError {
  return new TemplateError('error', message);
}

/** A Python pattern as a JavaScript RegExp (without the global flag). */
export function compilePattern(pattern: string, ignoreCase: boolean): Compiled {
  const key = `${ignoreCase ? 'i' : '-'}${pattern}`;
  const hit = cache.get(key);
  if (hit) return hit;
  budget().chargeText(pattern.length);
  let translated: { source: string; flags: string };
  try {
    translated = pythonPattern(pattern, ignoreCase);
  } catch (err) {
    if (err instanceof UnsupportedPattern) throw regexError(err.message);
    throw err;
  }
  const { source: src, flags } = translated;
  let re: RegExp;
  try {
    re = new RegExp(src, flags);
  } catch (err) {
    throw regexError((err as Error).message.replace(/^Invalid regular expression: /, ''));
  }
  const compiled = { re, guarded: /\\[1-9]|\\k<|\(\?<?[=!]/.test(src) };
  // a long pattern is compiled anew each time rather than kept: the cache stays small
  if (pattern.length > MAX_CACHED_PATTERN) return compiled;
  if (cache.size >= 128) cache.delete(cache.keys().next().value!);
  cache.set(key, compiled);
  return compiled;
}

const sandbox = vm.createContext({ job: null as null | (() => unknown), result: null as unknown });
const runJob = new vm.Script('result = job()');

/** Runs regex work; the work of a guarded pattern is interrupted after `ms`. */
function run<T>(r: RenderEnv, c: Compiled, input: string, work: () => T): T {
  if (input.length > MAX_INPUT) throw new RenderLimitError('', `Template regex input exceeded maximum size of ${MAX_INPUT} characters`);
  r.charge(input.length / 16);
  if (!c.guarded) return work();
  sandbox.job = work;
  try {
    runJob.runInContext(sandbox, { timeout: 200 });
    return sandbox.result as T;
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new RenderLimitError('', 'Template regex took longer than 200 ms');
    throw err;
  } finally {
    sandbox.job = null;
    sandbox.result = null;
  }
}

function withFlag(re: RegExp, flag: string): RegExp {
  return new RegExp(re.source, re.flags + flag);
}

function args(value: unknown, a: unknown[], k: Map<string, unknown>, caseIndex = 1) {
  return {
    text: str(value),
    find: str(argument(a, k, 0, 'find', '')),
    ignoreCase: argument(a, k, caseIndex, 'ignorecase', false) === true,
  };
}

function regexMatch(r: RenderEnv, value: unknown, a: unknown[], k: Map<string, unknown>): boolean {
  const { text, find, ignoreCase } = args(value, a, k);
  const c = compilePattern(find, ignoreCase);
  const sticky = withFlag(c.re, 'y');
  return run(r, c, text, () => sticky.test(text));
}

function regexSearch(r: RenderEnv, value: unknown, a: unknown[], k: Map<string, unknown>): boolean {
  const { text, find, ignoreCase } = args(value, a, k);
  const c = compilePattern(find, ignoreCase);
  return run(r, c, text, () => c.re.test(text));
}

/** Python's findall: whole matches, or the group, or a tuple of the groups. */
function findall(r: RenderEnv, text: string, find: string, ignoreCase: boolean): unknown[] {
  const c = compilePattern(find, ignoreCase);
  const global = withFlag(c.re, 'g');
  return run(r, c, text, () => {
    const out: unknown[] = [];
    for (const m of text.matchAll(global)) {
      // a match of a pattern with many groups gives a tuple of as many items
      r.charge(m.length);
      if (m.length === 1) out.push(m[0]);
      else if (m.length === 2) out.push(m[1] ?? '');
      else out.push(tuple(m.slice(1).map((g) => g ?? '')));
    }
    return out;
  });
}

/** A Python replacement template (`\1`, `\g<name>`, `\n`) as a function of a match giving the pieces of its replacement. */
function replacer(template: string): (m: RegExpExecArray | string[], groups?: Record<string, string | undefined>) => string[] {
  const parts: Array<string | number | { name: string }> = [];
  let literal = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c !== '\\') {
      literal += c;
      continue;
    }
    const e = template[++i];
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', a: '\x07', b: '\b', f: '\f', v: '\v' };
    if (e === undefined) throw regexError('bad escape (end of pattern)');
    if (e in simple) literal += simple[e];
    else if (/\d/.test(e)) {
      const num = /^\d{1,2}/.exec(template.slice(i))![0];
      i += num.length - 1;
      parts.push(literal, Number(num));
      literal = '';
    } else if (e === 'g') {
      const m = /^g<(\w+)>/.exec(template.slice(i));
      if (!m) throw regexError('missing <');
      i += m[0].length - 1;
      parts.push(literal, /^\d+$/.test(m[1]) ? Number(m[1]) : { name: m[1] });
      literal = '';
    } else if (/[a-zA-Z]/.test(e)) throw regexError(`bad escape \\${e}`);
    else literal += `\\${e}`;
  }
  parts.push(literal);
  return (m, groups) =>
    parts.map((p) => {
      if (typeof p === 'string') return p;
      if (typeof p === 'number') {
        if (p >= m.length) throw regexError(`invalid group reference ${p}`);
        return m[p] ?? '';
      }
      if (!groups || !(p.name in groups)) throw new TemplateError('IndexError', `unknown group name '${p.name}'`);
      return groups[p.name] ?? '';
    });
}

function regexReplace(r: RenderEnv, value: unknown, a: unknown[], k: Map<string, unknown>): string {
  const text = str(value);
  const find = str(argument(a, k, 0, 'find', ''));
  const replace = str(argument(a, k, 1, 'replace', ''));
  const ignoreCase = argument(a, k, 2, 'ignorecase', false) === true;
  const c = compilePattern(find, ignoreCase);
  const global = withFlag(c.re, 'g');
  r.chargeText(replace.length);
  const build = replacer(replace);
  return run(r, c, text, () => {
    // the pieces are slices of the text: the output is refused as it passes the limit, before it is joined
    const out = new TextBuilder();
    let last = 0;
    for (const m of text.matchAll(global)) {
      out.add(text.slice(last, m.index));
      for (const piece of build(m as unknown as string[], m.groups)) out.add(piece);
      last = m.index! + m[0].length;
    }
    out.add(text.slice(last));
    return out.text();
  });
}

export const REGEX_FILTERS: Record<string, FilterFn> = {
  regex_match: regexMatch,
  regex_search: regexSearch,
  regex_replace: regexReplace,
  regex_findall: (r, v, a, k) => {
    const { text, find, ignoreCase } = args(v, a, k);
    return findall(r, text, find, ignoreCase);
  },
  regex_findall_index: (r, v, a, k) => {
    const { text, find } = args(v, a, k);
    const index = Number(argument(a, k, 1, 'index', 0));
    const ignoreCase = argument(a, k, 2, 'ignorecase', false) === true;
    const all = findall(r, text, find, ignoreCase);
    const i = index < 0 ? all.length + index : index;
    if (i < 0 || i >= all.length) throw new TemplateError('IndexError', 'list index out of range');
    return all[i];
  },
};

export const REGEX_TESTS: Record<string, TestFn> = {
  match: regexMatch,
  search: regexSearch,
};
