// Which of the matches that let list slots take unknown words is worth answering. The original's
// default agent looks at every such match of every template and keeps one by how much of the
// sentence the templates' own words took, how many slots found a value, how few took unknown
// words. It tests each match against the one kept so far with a chain of "or"s, so a worse match
// arriving later can still replace a better one (fewer unknown words beats more template text
// after a match with more template text beat it); Hearth ranks by the same criteria in the same
// precedence, so the answer does not depend on the order of the templates.

import type { Found } from './match-run.ts';

/** What a match that allows unknown words is judged by. */
export interface MatchQuality {
  /** template text matched, in characters (spaces not counted): the original's text_chunks_matched */
  literal: number;
  /** slots with a value: list values said, slots copied from the context */
  matched: number;
  /** slots whose words no value has, and numbers out of their range (a missing context key is not one) */
  unmatched: number;
  /** of those, the numbers out of range */
  ranges: number;
  /** whether words were said for a `name` slot, known or not */
  hasName: boolean;
}

/** A match that matched no template text at all is no answer (the original skips it). */
export function worthRanking(quality: MatchQuality): boolean {
  return quality.literal >= 1;
}

/**
 * Whether `quality` ranks above `best`: more template text; then more slots with a value; then fewer
 * unknown words; then more of them numbers out of range; then a match about a name. A tie keeps
 * the match found first.
 */
export function replaces(quality: MatchQuality, best: MatchQuality | null): boolean {
  if (!best) return true;
  if (quality.literal !== best.literal) return quality.literal > best.literal;
  if (quality.matched !== best.matched) return quality.matched > best.matched;
  if (quality.unmatched !== best.unmatched) return quality.unmatched < best.unmatched;
  if (quality.ranges !== best.ranges) return quality.ranges > best.ranges;
  return quality.hasName && !best.hasName;
}

/**
 * How a match is judged among those with unknown words. The slots with a value are the values
 * said and those copied from the context; a block's fixed slots are not counted (the original
 * counts them, but Hearth's blocks fix `domain` and `name: all` where the original's sentences
 * mostly fix nothing, and counting them would let any such block outrank the words actually
 * said). A slot that also took unknown words, or whose context key is missing, has no value.
 */
export function qualityOf(found: Found): MatchQuality {
  const unknown = new Set(found.checked.missing);
  let unmatched = 0;
  let ranges = 0;
  for (const capture of found.captures) {
    if (!capture.unmatched) continue;
    unknown.add(capture.slot);
    unmatched++;
    if (capture.unmatched === 'range') ranges++;
  }
  const said = found.captures.filter((capture) => !capture.unmatched).map((capture) => capture.slot);
  const saidNames = new Set(said);
  const values = [...said, ...Object.keys(found.checked.slots).filter((slot) => !saidNames.has(slot))];
  return {
    literal: found.literal,
    matched: values.filter((slot) => !unknown.has(slot)).length,
    unmatched,
    ranges,
    hasName: found.captures.some((capture) => capture.slot === 'name'),
  };
}
