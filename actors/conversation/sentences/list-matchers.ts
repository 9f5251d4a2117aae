// Matching a `{list:slot}` of a template. Plain values (of YAML lists, and the lists given at
// match time) are looked up by the text of each span, longest first; values written as templates
// are tried one by one; ranges read digits or number words; a wildcard takes the fewest words
// that let the rest match.
import { asPrepared, digitsValue, inRange, numberFromWords, type PreparedList } from './lists.ts';
import { atWordEnd, firstEnd, pushCapture, tick, valueStart, SPACE, type Continuation, type Matcher, type Run } from './match-run.ts';
import type { DynamicListValue, RangeSpec } from './types.ts';
import { endUnknownWords, openUnmatched, unmatchedNumber } from './unknown-words.ts';

/** A list of the sentence files with values: the plain ones prepared for lookup, the others as matchers. */
export interface StaticList {
  kind: 'values';
  map: PreparedList;
  /** `saidOut`: no `out` given, the slot value is the words said */
  templates: { matcher: Matcher; value: DynamicListValue; saidOut: boolean }[];
}

/** How a list is matched: by its values, as a range, as a wildcard, or from the lists given at match time. */
export type ListMatcher = StaticList | { kind: 'range'; range: RangeSpec } | { kind: 'wildcard' } | { kind: 'dynamic' };

const PERCENT = 37;

function lookupSpans(run: Run, start: number, list: PreparedList, name: string, slot: string, next: Continuation): boolean {
  if (list.byText.size === 0) return false;
  const ends = run.input.ends;
  // longest span first: `kitchen light` before `kitchen`
  const first = firstEnd(run, start);
  const last = Math.min(ends.length - 1, first + list.maxWords - 1);
  for (let word = last; word >= first; word--) {
    const end = ends[word];
    const hits = list.byText.get(run.text.slice(start, end));
    if (!hits) continue;
    for (const hit of hits) {
      tick(run);
      if (pushCapture(run, { slot, list: name, value: hit.value.out, from: start, to: end, context: hit.value.context }, next)) return true;
    }
  }
  return false;
}

/** Whether some value of the list is said at `start`, whatever follows it. */
function lookupAny(run: Run, start: number, list: PreparedList): boolean {
  if (list.byText.size === 0) return false;
  const ends = run.input.ends;
  const first = firstEnd(run, start);
  const last = Math.min(ends.length - 1, first + list.maxWords - 1);
  for (let word = first; word <= last; word++) if (list.byText.has(run.text.slice(start, ends[word]))) return true;
  return false;
}

function rangeSpans(run: Run, start: number, range: RangeSpec, name: string, slot: string, next: Continuation): boolean {
  const ends = run.input.ends;
  const first = firstEnd(run, start);
  const word = run.text.slice(start, ends[first]);
  const multiplier = range.multiplier ?? 1;
  const digits = range.digits === false ? null : digitsValue(word, range);
  if (digits !== null) {
    tick(run);
    if (!inRange(digits, range)) return false;
    // `50%`: a percentage takes its sign along (normalised as the word `%`)
    const sign = ends[first] + 2 === ends[first + 1] && run.text.charCodeAt(ends[first] + 1) === PERCENT;
    if (sign && range.type === 'percentage' && pushCapture(run, { slot, list: name, value: digits * multiplier, from: start, to: ends[first + 1] }, next)) return true;
    return pushCapture(run, { slot, list: name, value: digits * multiplier, from: start, to: ends[first] }, next);
  }
  if (range.words === false) return false;
  for (let last = Math.min(ends.length - 1, first + 2); last >= first; last--) {
    const words = run.text.slice(start, ends[last]).split(' ');
    const said = numberFromWords(words);
    tick(run);
    if (said !== null && inRange(said, range) && pushCapture(run, { slot, list: name, value: said * multiplier, from: start, to: ends[last] }, next)) return true;
  }
  return false;
}

/** A wildcard's words: the fewest first. */
function anySpan(run: Run, start: number, name: string, slot: string, next: Continuation): boolean {
  for (const end of run.input.ends) {
    if (end <= start) continue;
    tick(run);
    const text = run.input.original.slice(run.input.at[start], run.input.at[end - 1] + 1).trim();
    if (pushCapture(run, { slot, list: name, value: text, from: start, to: end }, next)) return true;
  }
  return false;
}

/** Whether a value of a YAML list is said at `start`, whatever follows it. */
function valueSaidAt(run: Run, start: number, list: StaticList): boolean {
  if (lookupAny(run, start, list.map)) return true;
  const ended: Continuation = (end) => {
    if (end > start && run.text.charCodeAt(end - 1) === SPACE) end--;
    return end > start && (end === run.len || run.text.charCodeAt(end) === SPACE);
  };
  return list.templates.some((valueTemplate) => valueTemplate.matcher(run, start, ended));
}

/** The values of a YAML list written as templates, tried one by one at `start`. */
function valueTemplates(run: Run, start: number, list: StaticList, name: string, slot: string, next: Continuation): boolean {
  for (const valueTemplate of list.templates) {
    tick(run);
    const before = run.literal;
    const ok = valueTemplate.matcher(run, start, (end) => {
      // a template ending in a space (`living room [speaker]` without the option) consumed the space after it
      if (end > start && run.text.charCodeAt(end - 1) === SPACE) end--;
      if (!(end === run.len || run.text.charCodeAt(end) === SPACE)) return false;
      const value = valueTemplate.saidOut ? run.input.original.slice(run.input.at[start], run.input.at[end - 1] + 1) : valueTemplate.value.out;
      // a value's words are the slot's, not template text (as the original counts them)
      const inValue = run.literal - before;
      run.literal -= inValue;
      const pushed = pushCapture(run, { slot, list: name, value, from: start, to: end, context: valueTemplate.value.context }, next);
      run.literal += inValue;
      return pushed;
    });
    if (ok) return true;
  }
  return false;
}

/** The matcher of `{name:slot}`; `lists` are the lists the template's block sees. */
export function listMatcher(name: string, slot: string, lists: Map<string, ListMatcher>): Matcher {
  // looked up on first use: a list value's template may name a list defined after it
  let kind: ListMatcher | undefined;
  const matcher: Matcher = (run, position, next) => {
    kind ??= lists.get(name) ?? { kind: 'dynamic' };
    if (run.open) {
      // unknown words end where a value of a list of words is said ("is the toaster on")
      const saidAt = valueFinder(run, kind, name);
      return saidAt !== null && endUnknownWords(run, run.open, saidAt, (after) => matcher(run, after, next));
    }
    const start = valueStart(run, position);
    if (start < 0) return false;
    const atEnd = atWordEnd(run, next);
    switch (kind.kind) {
      case 'wildcard':
        return anySpan(run, start, name, slot, atEnd);
      case 'range':
        if (rangeSpans(run, start, kind.range, name, slot, atEnd)) return true;
        return run.allowUnmatched && unmatchedNumber(run, start, kind.range, name, slot, atEnd, next);
      case 'values': {
        if (run.allowUnmatched && !valueSaidAt(run, start, kind)) return openUnmatched(run, start, name, slot, next);
        if (lookupSpans(run, start, kind.map, name, slot, atEnd)) return true;
        return valueTemplates(run, start, kind, name, slot, next);
      }
      case 'dynamic': {
        const list = asPrepared(run.lists[name]);
        if (run.allowUnmatched && !(list && lookupAny(run, start, list))) return openUnmatched(run, start, name, slot, next);
        return list !== undefined && lookupSpans(run, start, list, name, slot, atEnd);
      }
    }
  };
  return matcher;
}

/** Where a value of a list of words is said (numbers and wildcards end no unknown words). */
function valueFinder(run: Run, kind: ListMatcher, name: string): ((at: number) => boolean) | null {
  if (kind.kind === 'values') return (at) => valueSaidAt(run, at, kind);
  if (kind.kind !== 'dynamic') return null;
  const list = asPrepared(run.lists[name]);
  return list ? (at) => lookupAny(run, at, list) : null;
}
