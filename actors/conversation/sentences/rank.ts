// Which of the matches that let list slots take unknown words is worth answering. The original's
// default agent looks at every such match of every template and keeps one by how much of the
// sentence the templates' own words took, how many slots found a value, how few took unknown
// words. It tests each match against the one kept so far with a chain of "or"s, so a worse match
// arriving later can still replace a better one (fewer unknown words beats more template text
// after a match with more template text beat it); Hearth ranks by the same criteria in the same
// precedence, so the answer does not depend on the order of the templates.

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
export function worthRanking(q: MatchQuality): boolean {
  return q.literal >= 1;
}

/**
 * Whether `q` ranks above `best`: more template text; then more slots with a value; then fewer
 * unknown words; then more of them numbers out of range; then a match about a name. A tie keeps
 * the match found first.
 */
export function replaces(q: MatchQuality, best: MatchQuality | null): boolean {
  if (!best) return true;
  if (q.literal !== best.literal) return q.literal > best.literal;
  if (q.matched !== best.matched) return q.matched > best.matched;
  if (q.unmatched !== best.unmatched) return q.unmatched < best.unmatched;
  if (q.ranges !== best.ranges) return q.ranges > best.ranges;
  return q.hasName && !best.hasName;
}
