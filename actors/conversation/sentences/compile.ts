// Compiling sentence files into a recognizer. Each template becomes a chain of matcher closures
// over the normalised input (backtracking, with a step budget), and is indexed by one word every
// match must contain, so a sentence only tries the templates whose words it has. Lists of plain
// values (and the entity names, areas and floors given at match time) are looked up by the text
// of each span, not tried value by value.
import { normalizeInput, normalizeTemplateText, normalizeText, type NormalizedInput } from './normalize.ts';
import { asPrepared, inRange, numberFromDigits, numberFromWords, prepareList, type PreparedList } from './lists.ts';
import { parseTemplate, TemplateSyntaxError, type TemplateNode } from './parse.ts';
import { replaces, worthRanking, type MatchQuality } from './rank.ts';
import { SentenceFileError } from './yaml.ts';
import type { ContextRule, DynamicListValue, IntentBlock, MatchedSlot, RangeSpec, RecognizeResult, SentenceFile, SlotList } from './types.ts';

export interface CompileOptions {
  /** which blocks are tried first when an intent has both; default `custom-first` (as the original prefers custom sentences) */
  order?: 'custom-first' | 'builtin-first' | 'as-given';
  /** called with each template that cannot be compiled (it is left out); without it, compiling throws */
  onError?: (err: SentenceFileError) => void;
  /** false: try every template on every sentence (no word index; for tests and the bench) */
  index?: boolean;
}

/** Lists given at match time: entity names/aliases, areas, floors (and any other list name). */
export type MatchLists = Record<string, PreparedList | readonly DynamicListValue[] | undefined>;

export interface RecognizeOptions {
  lists?: MatchLists;
  /** the match-time context (e.g. `{area: <the device's area>}`), checked by requires/excludes_context */
  context?: Record<string, unknown>;
  /**
   * when nothing matches strictly, answer the match the original would: list slots where no value
   * is said take the words up to the template's next words (reported in `unmatchedSlots`), and of
   * all such matches the one with the most template text and known values wins (rank.ts)
   */
  allowUnmatched?: boolean;
}

/** Recognises sentences against compiled sentence files. */
export interface Recognizer {
  /** the first matching block (in merge order), or null; with `allowUnmatched`, see there */
  recognize(text: string, options?: RecognizeOptions): RecognizeResult | null;
  /** every matching block in order, one result each (for debugging) */
  recognizeAll(text: string, options?: RecognizeOptions): RecognizeResult[];
  /** `responses.intents.<intent>.<key>` of the files (custom files override built-in ones) */
  response(intent: string, key: string): string | undefined;
  /** intent names, in merge order */
  readonly intents: string[];
  /** lists referenced by templates but not defined in the files: they are expected at match time */
  readonly dynamicLists: string[];
  readonly templateCount: number;
  readonly skipWords: string[];
}

// ---------------------------------------------------------------------------------------------
// the resolved tree: rules inlined, permutations expanded, lists resolved

type Resolved =
  | { t: 'text'; v: string }
  | { t: 'seq'; c: Resolved[] }
  | { t: 'alt'; c: Resolved[] }
  | { t: 'list'; list: string; slot: string };

const EMPTY: Resolved = { t: 'seq', c: [] };

function permutations<T>(xs: T[]): T[][] {
  if (xs.length <= 1) return [xs];
  const out: T[][] = [];
  xs.forEach((x, i) => {
    for (const rest of permutations([...xs.slice(0, i), ...xs.slice(i + 1)])) out.push([x, ...rest]);
  });
  return out;
}

class CompileError extends Error {}

function resolve(node: TemplateNode, rule: (name: string) => TemplateNode | undefined, stack: string[]): Resolved {
  switch (node.t) {
    case 'text':
      return { t: 'text', v: normalizeTemplateText(node.v) };
    case 'seq':
      return { t: 'seq', c: node.c.map((c) => resolve(c, rule, stack)) };
    case 'alt': {
      const c = node.c.map((c) => resolve(c, rule, stack));
      return { t: 'alt', c: node.optional ? [...c, EMPTY] : c };
    }
    case 'perm': {
      const parts = node.c.map((c) => resolve(c, rule, stack));
      const space: Resolved = { t: 'text', v: ' ' };
      return { t: 'alt', c: permutations(parts).map((order) => ({ t: 'seq', c: order.flatMap((p, i) => (i ? [space, p] : [p])) })) };
    }
    case 'list':
      return { t: 'list', list: node.list, slot: node.slot };
    case 'rule': {
      if (stack.includes(node.name)) throw new CompileError(`expansion rule <${node.name}> refers to itself (${[...stack, node.name].map((n) => `<${n}>`).join(' -> ')})`);
      const body = rule(node.name);
      if (!body) throw new CompileError(`unknown expansion rule <${node.name}>`);
      return resolve(body, rule, [...stack, node.name]);
    }
  }
}

// words every match of a node contains (used to index templates)
function startsAtWord(n: Resolved): boolean {
  if (n.t === 'text') return n.v.startsWith(' ');
  if (n.t === 'list') return true;
  if (n.t === 'seq') return n.c.length > 0 && startsAtWord(n.c[0]);
  return n.c.length > 0 && n.c.every(startsAtWord);
}
function endsAtWord(n: Resolved): boolean {
  if (n.t === 'text') return n.v.endsWith(' ');
  if (n.t === 'list') return true;
  if (n.t === 'seq') return n.c.length > 0 && endsAtWord(n.c[n.c.length - 1]);
  return n.c.length > 0 && n.c.every(endsAtWord);
}
function requiredWords(n: Resolved, left: boolean, right: boolean): Set<string> {
  const out = new Set<string>();
  if (n.t === 'text') {
    const parts = n.v.split(' ');
    parts.forEach((w, i) => {
      if (w && (i > 0 || left) && (i < parts.length - 1 || right)) out.add(w);
    });
  } else if (n.t === 'seq') {
    n.c.forEach((c, i) => {
      const l = i === 0 ? left : endsAtWord(n.c[i - 1]);
      const r = i === n.c.length - 1 ? right : startsAtWord(n.c[i + 1]);
      for (const w of requiredWords(c, l, r)) out.add(w);
    });
  } else if (n.t === 'alt') {
    const sets = n.c.map((c) => requiredWords(c, left, right));
    for (const w of sets[0] ?? []) if (sets.every((s) => s.has(w))) out.add(w);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// matching

interface Capture {
  slot: string;
  list: string;
  value: unknown;
  /** [start, end) in the normalised input; `to` is -1 while unknown words are still open */
  from: number;
  to: number;
  context?: Record<string, unknown>;
  /** `words`: no value of the list was said there; `range`: a number outside the list's range */
  unmatched?: 'words' | 'range';
}

/** One complete match of a template. */
interface Found {
  caps: Capture[];
  context: Record<string, unknown>;
  extra: ContextCheck;
  /** template characters matched (spaces not counted) */
  literal: number;
}

interface Run {
  s: string;
  len: number;
  input: NormalizedInput;
  lists: MatchLists;
  context: Record<string, unknown>;
  caps: Capture[];
  allowUnmatched: boolean;
  steps: number;
  /** template characters matched on the way so far */
  literal: number;
  /** unknown words for a list slot that end where the template's next words are found */
  open: Capture | null;
  /** strict: the first match; with `collect`, every match is handed over and the search goes on */
  found: Found | null;
  collect: ((found: Found) => void) | null;
}

type K = (p: number) => boolean;
type M = (r: Run, p: number, k: K) => boolean;

/** the text of an unmatched slot that stands for a missing required context key */
export const MISSING = '<missing>';
const SPACE = 32;
const PERCENT = 37;
const MAX_STEPS = 20_000;
const BUDGET = { budget: true };

function tick(r: Run): void {
  if (++r.steps > MAX_STEPS) throw BUDGET;
}

/** Where a value may start at p (after one space, at a word start), or -1. */
function valueStart(r: Run, p: number): number {
  if (r.s.charCodeAt(p) === SPACE) p++;
  if (p >= r.len) return -1;
  if (p > 0 && r.s.charCodeAt(p - 1) !== SPACE) return -1;
  return p;
}

/** The index in `ends` of the first word end after `start`. */
function firstEnd(r: Run, start: number): number {
  const ends = r.input.ends;
  let first = 0;
  while (ends[first] <= start) first++;
  return first;
}

function push(r: Run, cap: Capture, k: K): boolean {
  r.caps.push(cap);
  const ok = k(cap.to);
  r.caps.pop();
  return ok;
}

interface StaticList {
  kind: 'values';
  map: PreparedList;
  /** `saidOut`: no `out` given, the slot value is the words said */
  templates: { m: M; value: DynamicListValue; saidOut: boolean }[];
}

type ListMatcher = StaticList | { kind: 'range'; range: RangeSpec } | { kind: 'wildcard' } | { kind: 'dynamic' };

function lookupSpans(r: Run, start: number, list: PreparedList, name: string, slot: string, k: K): boolean {
  if (list.byText.size === 0) return false;
  const ends = r.input.ends;
  // longest span first: `kitchen light` before `kitchen`
  const first = firstEnd(r, start);
  const last = Math.min(ends.length - 1, first + list.maxWords - 1);
  for (let i = last; i >= first; i--) {
    const e = ends[i];
    const hits = list.byText.get(r.s.slice(start, e));
    if (!hits) continue;
    for (const h of hits) {
      tick(r);
      if (push(r, { slot, list: name, value: h.value.out, from: start, to: e, context: h.value.context }, k)) return true;
    }
  }
  return false;
}

/** Whether some value of the list is said at `start`, whatever follows it. */
function lookupAny(r: Run, start: number, list: PreparedList): boolean {
  if (list.byText.size === 0) return false;
  const ends = r.input.ends;
  const first = firstEnd(r, start);
  const last = Math.min(ends.length - 1, first + list.maxWords - 1);
  for (let i = first; i <= last; i++) if (list.byText.has(r.s.slice(start, ends[i]))) return true;
  return false;
}

/** A digits word; a temperature's digits may carry the degree sign (`21°`, one word once normalised). */
function digitsOf(word: string, range: RangeSpec): number | null {
  return numberFromDigits(range.type === 'temperature' && word.endsWith('°') ? word.slice(0, -1) : word);
}

function rangeSpans(r: Run, start: number, range: RangeSpec, name: string, slot: string, k: K): boolean {
  const ends = r.input.ends;
  const first = firstEnd(r, start);
  const word = r.s.slice(start, ends[first]);
  const mult = range.multiplier ?? 1;
  const n = range.digits === false ? null : digitsOf(word, range);
  if (n !== null) {
    tick(r);
    if (!inRange(n, range)) return false;
    // `50%`: a percentage takes its sign along (normalised as the word `%`)
    const sign = ends[first] + 2 === ends[first + 1] && r.s.charCodeAt(ends[first] + 1) === PERCENT;
    if (sign && range.type === 'percentage' && push(r, { slot, list: name, value: n * mult, from: start, to: ends[first + 1] }, k)) return true;
    return push(r, { slot, list: name, value: n * mult, from: start, to: ends[first] }, k);
  }
  if (range.words === false) return false;
  for (let i = Math.min(ends.length - 1, first + 2); i >= first; i--) {
    const words = r.s.slice(start, ends[i]).split(' ');
    const w = numberFromWords(words);
    tick(r);
    if (w !== null && inRange(w, range) && push(r, { slot, list: name, value: w * mult, from: start, to: ends[i] }, k)) return true;
  }
  return false;
}

/** A wildcard's words: the fewest first. */
function anySpan(r: Run, start: number, name: string, slot: string, k: K): boolean {
  for (const e of r.input.ends) {
    if (e <= start) continue;
    tick(r);
    const text = r.input.original.slice(r.input.at[start], r.input.at[e - 1] + 1).trim();
    if (push(r, { slot, list: name, value: text, from: start, to: e }, k)) return true;
  }
  return false;
}

/**
 * Unknown words for a list slot (as the original: only where no value of the list is said). They
 * run to wherever the template's next words are found, or to the end of the sentence, so they
 * never stop inside a name to leave its last words to another slot.
 */
function openUnmatched(r: Run, start: number, name: string, slot: string, k: K): boolean {
  const cap: Capture = { slot, list: name, value: null, from: start, to: -1, unmatched: 'words' };
  r.caps.push(cap);
  r.open = cap;
  // the position stays: what follows finds where the unknown words end
  const ok = k(start);
  r.open = null;
  r.caps.pop();
  return ok;
}

/** A number said at `start`, in or out of any range: digits, else up to three number words. */
function numberSaid(r: Run, start: number, range: RangeSpec): { value: number; to: number } | null {
  const ends = r.input.ends;
  const first = firstEnd(r, start);
  const n = digitsOf(r.s.slice(start, ends[first]), range);
  if (n !== null) return { value: n, to: ends[first] };
  for (let i = Math.min(ends.length - 1, first + 2); i >= first; i--) {
    const w = numberFromWords(r.s.slice(start, ends[i]).split(' '));
    if (w !== null) return { value: w, to: ends[i] };
  }
  return null;
}

/** A range slot that took no value: a number out of range is one unmatched number; anything else, unknown words. */
function unmatchedNumber(r: Run, start: number, range: RangeSpec, name: string, slot: string, at: K, k: K): boolean {
  const said = numberSaid(r, start, range);
  if (!said) return openUnmatched(r, start, name, slot, k);
  // a number of the range was tried as a value already
  if (inRange(said.value, range)) return false;
  return push(r, { slot, list: name, value: said.value, from: start, to: said.to, unmatched: 'range' }, at);
}

/** Whether a value of a YAML list is said at `start`, whatever follows it. */
function valueSaidAt(r: Run, start: number, list: StaticList): boolean {
  if (lookupAny(r, start, list.map)) return true;
  const ended: K = (e) => {
    if (e > start && r.s.charCodeAt(e - 1) === SPACE) e--;
    return e > start && (e === r.len || r.s.charCodeAt(e) === SPACE);
  };
  return list.templates.some((tv) => tv.m(r, start, ended));
}

// (closures made per call are returned anonymous: tsx names every named one, a cost in this loop)
function atWordEnd(r: Run, k: K): K {
  return (e) => (e === r.len || r.s.charCodeAt(e) === SPACE) && k(e);
}

function listMatcher(name: string, slot: string, lists: Map<string, ListMatcher>): M {
  // looked up on first use: a list value's template may name a list defined after it
  let lm: ListMatcher | undefined;
  const m: M = (r, p, k) => {
    lm ??= lists.get(name) ?? { kind: 'dynamic' };
    if (r.open) {
      // unknown words end where a value of a list of words is said ("is the toaster on")
      const saidAt = valueFinder(r, lm, name);
      return saidAt !== null && endUnknownWords(r, r.open, saidAt, (q) => m(r, q, k));
    }
    const start = valueStart(r, p);
    if (start < 0) return false;
    const at = atWordEnd(r, k);
    switch (lm.kind) {
      case 'wildcard':
        return anySpan(r, start, name, slot, at);
      case 'range':
        if (rangeSpans(r, start, lm.range, name, slot, at)) return true;
        return r.allowUnmatched && unmatchedNumber(r, start, lm.range, name, slot, at, k);
      case 'values': {
        if (r.allowUnmatched && !valueSaidAt(r, start, lm)) return openUnmatched(r, start, name, slot, k);
        if (lookupSpans(r, start, lm.map, name, slot, at)) return true;
        for (const tv of lm.templates) {
          tick(r);
          const before = r.literal;
          const ok = tv.m(r, start, (e) => {
            // a template ending in a space (`living room [speaker]` without the option) consumed the space after it
            if (e > start && r.s.charCodeAt(e - 1) === SPACE) e--;
            if (!(e === r.len || r.s.charCodeAt(e) === SPACE)) return false;
            const value = tv.saidOut ? r.input.original.slice(r.input.at[start], r.input.at[e - 1] + 1) : tv.value.out;
            // a value's words are the slot's, not template text (as the original counts them)
            const inValue = r.literal - before;
            r.literal -= inValue;
            const pushed = push(r, { slot, list: name, value, from: start, to: e, context: tv.value.context }, k);
            r.literal += inValue;
            return pushed;
          });
          if (ok) return true;
        }
        return false;
      }
      case 'dynamic': {
        const list = asPrepared(r.lists[name]);
        if (r.allowUnmatched && !(list && lookupAny(r, start, list))) return openUnmatched(r, start, name, slot, k);
        return list !== undefined && lookupSpans(r, start, list, name, slot, at);
      }
    }
  };
  return m;
}

/** Where a value of a list of words is said (numbers and wildcards end no unknown words). */
function valueFinder(r: Run, lm: ListMatcher, name: string): ((i: number) => boolean) | null {
  if (lm.kind === 'values') return (i) => valueSaidAt(r, i, lm);
  if (lm.kind !== 'dynamic') return null;
  const list = asPrepared(r.lists[name]);
  return list ? (i) => lookupAny(r, i, list) : null;
}

function textMatcher(v: string): M {
  const leadingWord = v.length > 0 && v.charCodeAt(0) !== SPACE;
  const words = v.trim();
  // each template character is one UTF-16 unit of the normalised text
  const units: number[] = [];
  for (let i = 0; i < v.length; i++) units.push(v.charCodeAt(i));
  const letters = units.filter((c) => c !== SPACE).length;
  const here: M = (r, p, k) => {
    const s = r.s;
    if (leadingWord && s.charCodeAt(p) === SPACE) p++;
    for (let j = 0; j < units.length; j++) {
      const c = units[j];
      if (c === SPACE) {
        if (s.charCodeAt(p) === SPACE) p++;
        else if (!(p === 0 || p === r.len || s.charCodeAt(p - 1) === SPACE)) return false;
      } else {
        if (s.charCodeAt(p) !== c) return false;
        p++;
      }
    }
    r.literal += letters;
    const ok = k(p);
    r.literal -= letters;
    return ok;
  };
  return (r, p, k) => {
    const open = r.open;
    if (!open) return here(r, p, k);
    // spaces between a slot and what follows it end no unknown words
    if (!words) return k(p);
    return endUnknownWords(r, open, (i) => r.s.startsWith(words, i), (q) => here(r, q, k));
  };
}

/**
 * Ends open unknown words before a later word where what follows them fits (`fits`), and goes on
 * from the space before it (`then`); each such word in turn until one leads to a match.
 */
function endUnknownWords(r: Run, open: Capture, fits: (i: number) => boolean, then: (p: number) => boolean): boolean {
  const ends = r.input.ends;
  // what follows is matched as usual: the unknown words are closed
  r.open = null;
  try {
    for (let j = 0; j < ends.length - 1; j++) {
      // the unknown words are at least one word
      if (ends[j] <= open.from || !fits(ends[j] + 1)) continue;
      tick(r);
      open.to = ends[j];
      const ok = then(ends[j]);
      open.to = -1;
      if (ok) return true;
    }
    return false;
  } finally {
    r.open = open;
  }
}

function seqMatcher(ms: M[]): M {
  if (ms.length === 0) return (_r, p, k) => k(p);
  if (ms.length === 1) return ms[0];
  const [first, ...rest] = ms;
  const next = seqMatcher(rest);
  return (r, p, k) => first(r, p, (q) => next(r, q, k));
}

function altMatcher(ms: M[]): M {
  return (r, p, k) => {
    for (const m of ms) {
      tick(r);
      if (m(r, p, k)) return true;
    }
    return false;
  };
}

function matcher(n: Resolved, lists: Map<string, ListMatcher>): M {
  switch (n.t) {
    case 'text':
      return textMatcher(n.v);
    case 'seq':
      return seqMatcher(n.c.map((c) => matcher(c, lists)));
    case 'alt':
      return altMatcher(n.c.map((c) => matcher(c, lists)));
    case 'list':
      return listMatcher(n.list, n.slot, lists);
  }
}

function hasKeyword(c: Compiled, words: Set<string>): boolean {
  return !c.keywords || c.keywords.length === 0 || c.keywords.some((k) => words.has(k));
}

function textChunks(n: Resolved): number {
  if (n.t === 'text') return n.v.trim() ? 1 : 0;
  if (n.t === 'list') return 0;
  return n.c.reduce((sum, c) => sum + textChunks(c), 0);
}

function listNames(n: Resolved, out: Set<string>): void {
  if (n.t === 'list') out.add(n.list);
  else if (n.t !== 'text') for (const c of n.c) listNames(c, out);
}

// ---------------------------------------------------------------------------------------------
// context checks

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || String(a) === String(b);
}

/** A context value as given: plain, or `{value, text}` (as the original allows). */
function unpack(v: unknown): { value: unknown; text: string } {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const o = v as { value?: unknown; text?: unknown };
    return { value: o.value ?? null, text: typeof o.text === 'string' ? o.text : '' };
  }
  return { value: v, text: typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v) };
}

interface ContextCheck {
  /** slots copied from the context (`slot: true` or a slot name) */
  slots: Record<string, { value: unknown; text: string }>;
  /** required keys missing (only when unmatched slots are allowed: reported, not failed) */
  missing: string[];
}

/** Checks excludes/requires_context against the merged context; null when it fails. */
function checkContext(block: IntentBlock, ctx: Record<string, unknown>, allowMissing: boolean): ContextCheck | null {
  for (const [key, rule] of Object.entries(block.excludesContext ?? {})) {
    if (!(key in ctx)) continue;
    const bad = typeof rule === 'object' && rule !== null && !Array.isArray(rule) ? (rule.value ?? null) : rule;
    const have = unpack(ctx[key]).value;
    if (Array.isArray(bad) ? bad.some((x) => sameValue(x, have)) : bad === have || (bad !== null && have !== null && sameValue(bad, have))) return null;
  }
  const out: ContextCheck = { slots: {}, missing: [] };
  for (const [key, rule] of Object.entries(block.requiresContext ?? {})) {
    let want: unknown = rule;
    let copyTo: string | null = null;
    if (typeof rule === 'object' && rule !== null && !Array.isArray(rule)) {
      want = rule.value ?? null;
      if (typeof rule.slot === 'string') copyTo = rule.slot;
      else if (rule.slot) copyTo = key;
    }
    const have = unpack(ctx[key]);
    const present = have.value !== undefined && have.value !== null;
    const ok = present && (want === null || (Array.isArray(want) ? want.some((w) => sameValue(w, have.value)) : sameValue(want, have.value)));
    if (ok) {
      if (copyTo) out.slots[copyTo] = have;
      continue;
    }
    if (!allowMissing) return null;
    out.missing.push(key);
  }
  return out;
}

/**
 * How a match is judged among those with unknown words. The slots with a value are the values
 * said and those copied from the context; a block's fixed slots are not counted (the original
 * counts them, but Hearth's blocks fix `domain` and `name: all` where the original's sentences
 * mostly fix nothing, and counting them would let any such block outrank the words actually
 * said). A slot that also took unknown words, or whose context key is missing, has no value.
 */
function qualityOf(found: Found): MatchQuality {
  const unknown = new Set(found.extra.missing);
  let unmatched = 0;
  let ranges = 0;
  for (const cap of found.caps) {
    if (!cap.unmatched) continue;
    unknown.add(cap.slot);
    unmatched++;
    if (cap.unmatched === 'range') ranges++;
  }
  const said = found.caps.filter((cap) => !cap.unmatched).map((cap) => cap.slot);
  const saidNames = new Set(said);
  const values = [...said, ...Object.keys(found.extra.slots).filter((s) => !saidNames.has(s))];
  return {
    literal: found.literal,
    matched: values.filter((s) => !unknown.has(s)).length,
    unmatched,
    ranges,
    hasName: found.caps.some((cap) => cap.slot === 'name'),
  };
}

// ---------------------------------------------------------------------------------------------
// compiling

interface BlockInfo {
  intent: string;
  index: number;
  block: IntentBlock;
  file: SentenceFile;
}

interface Compiled {
  order: number;
  info: BlockInfo;
  template: string;
  m: M;
  /** words every match contains */
  required: string[];
  /** the block's required_keywords (one is enough), normalised */
  keywords: string[] | undefined;
}

function orderFiles(files: SentenceFile[], order: CompileOptions['order']): SentenceFile[] {
  if (order === 'as-given') return files;
  const custom = files.filter((f) => f.source === 'custom');
  const builtin = files.filter((f) => f.source !== 'custom');
  return order === 'builtin-first' ? [...builtin, ...custom] : [...custom, ...builtin];
}

/** Compiles sentence files (merged: later lists, rules and responses override; intent blocks add up). */
export function compileSentences(files: SentenceFile[], options: CompileOptions = {}): Recognizer {
  const ordered = orderFiles(files, options.order ?? 'custom-first');
  const fail = (err: SentenceFileError) => {
    if (options.onError) options.onError(err);
    else throw err;
  };

  // merged data; for lists, rules, skip words and responses built-in files come first so custom ones override
  const overrideOrder = [...files.filter((f) => f.source !== 'custom'), ...files.filter((f) => f.source === 'custom')];
  const listSpecs = new Map<string, { spec: SlotList; file: string }>();
  const globalRules = new Map<string, { text: string; file: string }>();
  const skip = new Set<string>();
  const responses = new Map<string, Map<string, string>>();
  for (const f of overrideOrder) {
    for (const [name, spec] of Object.entries(f.lists)) listSpecs.set(name, { spec, file: f.file });
    for (const [name, text] of Object.entries(f.expansionRules)) globalRules.set(name, { text, file: f.file });
    for (const w of f.skipWords) {
      const n = normalizeText(w);
      if (n) skip.add(n);
    }
    for (const [intent, keys] of Object.entries(f.responses)) {
      const m = responses.get(intent) ?? new Map<string, string>();
      for (const [k, v] of Object.entries(keys)) m.set(k, v);
      responses.set(intent, m);
    }
  }
  const skipPhrases = [...skip].map((w) => w.split(' ')).sort((a, b) => b.length - a.length);

  const parsed = new Map<string, TemplateNode>();
  const parse = (text: string): TemplateNode => {
    let node = parsed.get(text);
    if (!node) {
      node = parseTemplate(text);
      parsed.set(text, node);
    }
    return node;
  };
  const globalRule = (name: string) => {
    const r = globalRules.get(name);
    return r ? parse(r.text) : undefined;
  };

  // static lists: `into` is the map the list goes in (and the one its template values see)
  const addList = (into: Map<string, ListMatcher>, name: string, spec: SlotList, file: string, key: string) => {
    if (spec.kind === 'wildcard') into.set(name, { kind: 'wildcard' });
    else if (spec.kind === 'range') into.set(name, { kind: 'range', range: spec.range });
    else {
      const plain: DynamicListValue[] = [];
      const templates: StaticList['templates'] = [];
      const entry: StaticList = { kind: 'values', map: prepareList([]), templates };
      into.set(name, entry);
      spec.values.forEach((v, i) => {
        const value: DynamicListValue = { in: v.in, out: v.out ?? v.in, context: v.context };
        if (!/[()[\]{}<>|;\\]/.test(v.in)) {
          plain.push(value);
          return;
        }
        try {
          const resolved = resolve(parse(v.in), globalRule, []);
          templates.push({ m: matcher(resolved, into), value, saidOut: v.out === undefined });
        } catch (err) {
          const msg = err instanceof CompileError || err instanceof TemplateSyntaxError ? err.message : String(err);
          fail(new SentenceFileError(file, `${key}.values[${i}]`, msg));
        }
      });
      entry.map = prepareList(plain);
    }
  };
  const lists = new Map<string, ListMatcher>();
  for (const [name, { spec, file }] of listSpecs) addList(lists, name, spec, file, `lists.${name}`);

  // intents in first-appearance order, blocks in file order
  const byIntent = new Map<string, BlockInfo[]>();
  for (const f of ordered) {
    for (const [intent, blocks] of Object.entries(f.intents)) {
      const list = byIntent.get(intent) ?? [];
      byIntent.set(intent, list);
      for (const block of blocks) list.push({ intent, index: list.length, block, file: f });
    }
  }

  const compiled: Compiled[] = [];
  const dynamic = new Set<string>();
  for (const infos of byIntent.values()) {
    for (const info of infos) {
      const local = info.block.expansionRules ?? {};
      const rule = (name: string) => (name in local ? parse(local[name]) : globalRule(name));
      const blockIndexInFile = info.file.intents[info.intent].indexOf(info.block);
      const key = `intents.${info.intent}.data[${blockIndexInFile}]`;
      let blockLists = lists;
      if (info.block.lists && Object.keys(info.block.lists).length) {
        blockLists = new Map(lists);
        for (const [name, spec] of Object.entries(info.block.lists)) addList(blockLists, name, spec, info.file.file, `${key}.lists.${name}`);
      }
      const keywords = info.block.requiredKeywords?.map(normalizeText).filter(Boolean);
      const mine: Omit<Compiled, 'order'>[] = [];
      const chunks = new Map<Omit<Compiled, 'order'>, number>();
      info.block.sentences.forEach((template, j) => {
        try {
          const resolved = resolve(parse(template), rule, []);
          const names = new Set<string>();
          listNames(resolved, names);
          for (const n of names) if (!blockLists.has(n)) dynamic.add(n);
          const c = { info, template, m: matcher(resolved, blockLists), required: [...requiredWords(resolved, true, true)], keywords };
          mine.push(c);
          // as the original: templates with a wildcard and more literal text are tried first
          const wild = [...names].some((n) => blockLists.get(n)?.kind === 'wildcard');
          chunks.set(c, wild ? -textChunks(resolved) : 0);
        } catch (err) {
          const msg = err instanceof CompileError || err instanceof TemplateSyntaxError ? err.message : String(err);
          fail(new SentenceFileError(info.file.file, `${key}.sentences[${j}]`, msg));
        }
      });
      mine.sort((a, b) => chunks.get(a)! - chunks.get(b)!);
      for (const c of mine) compiled.push({ ...c, order: compiled.length });
    }
  }

  // the index: each template under its rarest required word
  const freq = new Map<string, number>();
  for (const c of compiled) for (const w of c.required) freq.set(w, (freq.get(w) ?? 0) + 1);
  const buckets = new Map<string, Compiled[]>();
  const always: Compiled[] = [];
  for (const c of compiled) {
    if (c.required.length === 0) {
      always.push(c);
      continue;
    }
    let best = c.required[0];
    for (const w of c.required) if ((freq.get(w) ?? 0) < (freq.get(best) ?? 0)) best = w;
    const b = buckets.get(best) ?? [];
    b.push(c);
    buckets.set(best, b);
  }

  function candidates(input: NormalizedInput): Compiled[] {
    if (options.index === false) return compiled;
    const words = new Set(input.words);
    const out: Compiled[] = [];
    for (const w of words) {
      const b = buckets.get(w);
      if (b) for (const c of b) if (c.required.every((x) => words.has(x)) && hasKeyword(c, words)) out.push(c);
    }
    for (const c of always) if (hasKeyword(c, words)) out.push(c);
    out.sort((a, b) => a.order - b.order);
    return out;
  }

  function finish(r: Run, block: IntentBlock): K {
    return (p) => {
      // unknown words still open take the rest of the sentence
      const open = r.open;
      if (open) open.to = r.len;
      else {
        if (r.s.charCodeAt(p) === SPACE) p++;
        if (p !== r.len) return false;
      }
      const ctx: Record<string, unknown> = { ...r.context };
      for (const cap of r.caps) if (cap.context) Object.assign(ctx, cap.context);
      const extra = checkContext(block, ctx, r.allowUnmatched);
      let done = false;
      if (extra) {
        const found: Found = { caps: r.caps.map((cap) => ({ ...cap })), context: ctx, extra, literal: r.literal };
        if (r.collect) r.collect(found);
        else {
          r.found = found;
          done = true;
        }
      }
      if (open) open.to = -1;
      return done;
    };
  }

  function tryTemplate(r: Run, c: Compiled): boolean {
    const block = c.info.block;
    r.steps = 0;
    r.found = null;
    const done = finish(r, block);
    try {
      return c.m(r, 0, done);
    } catch (err) {
      if (err === BUDGET) return false;
      throw err;
    } finally {
      r.caps.length = 0;
      r.open = null;
      r.literal = 0;
    }
  }

  function result(input: NormalizedInput, found: Found, c: Compiled): RecognizeResult {
    const slots: Record<string, MatchedSlot> = {};
    const unmatchedSlots: RecognizeResult['unmatchedSlots'] = {};
    for (const [name, value] of Object.entries(c.info.block.slots ?? {})) slots[name] = { name, value, text: '', list: null };
    for (const [name, v] of Object.entries(found.extra.slots)) slots[name] = { name, value: v.value, text: v.text, list: null };
    // as the original's debug: a required context key that is missing shows as an unmatched slot
    for (const key of found.extra.missing) unmatchedSlots[key] = { name: key, text: MISSING, list: null };
    for (const cap of found.caps) {
      const text = input.original.slice(input.at[cap.from], input.at[cap.to - 1] + 1).trim();
      if (cap.unmatched) {
        unmatchedSlots[cap.slot] = { name: cap.slot, text, list: cap.list };
        continue;
      }
      const slot: MatchedSlot = { name: cap.slot, value: cap.value, text, list: cap.list };
      if (cap.context) slot.context = cap.context;
      slots[cap.slot] = slot;
    }
    const b = c.info.block;
    return {
      intent: c.info.intent,
      slots,
      unmatchedSlots,
      template: c.template,
      response: b.response ?? 'default',
      metadata: b.metadata ?? null,
      source: c.info.file.source,
      file: c.info.file.file,
      block: c.info.index,
      context: found.context,
      normalized: input.s,
    };
  }

  function run(text: string, options: RecognizeOptions, allowUnmatched: boolean): Run {
    const input = normalizeInput(text, skipPhrases);
    return {
      s: input.s,
      len: input.s.length,
      input,
      lists: options.lists ?? {},
      context: options.context ?? {},
      caps: [],
      allowUnmatched,
      steps: 0,
      literal: 0,
      open: null,
      found: null,
      collect: null,
    };
  }

  function recognize(text: string, options: RecognizeOptions = {}): RecognizeResult | null {
    const r = run(text, options, false);
    if (r.len === 0) return null;
    const cands = candidates(r.input);
    for (const c of cands) if (tryTemplate(r, c)) return result(r.input, r.found!, c);
    return options.allowUnmatched ? bestWithUnknownWords(r, cands) : null;
  }

  /** Every match of every template that lets list slots take unknown words, judged as the original does (rank.ts). */
  function bestWithUnknownWords(r: Run, cands: Compiled[]): RecognizeResult | null {
    r.allowUnmatched = true;
    const best: { found: Found; c: Compiled; quality: MatchQuality | null } = { found: null!, c: null!, quality: null };
    for (const c of cands) {
      r.collect = (found) => {
        const quality = qualityOf(found);
        if (worthRanking(quality) && replaces(quality, best.quality)) Object.assign(best, { found, c, quality });
      };
      tryTemplate(r, c);
    }
    r.collect = null;
    return best.quality ? result(r.input, best.found, best.c) : null;
  }

  function recognizeAll(text: string, options: RecognizeOptions = {}): RecognizeResult[] {
    const r = run(text, options, false);
    if (r.len === 0) return [];
    const out: RecognizeResult[] = [];
    const seen = new Set<BlockInfo>();
    for (const c of candidates(r.input)) {
      if (seen.has(c.info)) continue;
      if (tryTemplate(r, c)) {
        seen.add(c.info);
        out.push(result(r.input, r.found!, c));
      }
    }
    return out;
  }

  return {
    recognize,
    recognizeAll,
    response: (intent, key) => responses.get(intent)?.get(key),
    intents: [...byIntent.keys()],
    dynamicLists: [...dynamic],
    templateCount: compiled.length,
    skipWords: [...skip],
  };
}
