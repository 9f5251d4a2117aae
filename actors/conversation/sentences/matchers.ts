// A resolved template turned into its chain of matcher closures: literal text compared one
// UTF-16 unit at a time, sequences and alternatives composed, lists matched by list-matchers.ts.
import { listMatcher, type ListMatcher } from './list-matchers.ts';
import { tick, SPACE, type Matcher } from './match-run.ts';
import type { Resolved } from './resolved-tree.ts';
import { endUnknownWords } from './unknown-words.ts';

function textMatcher(text: string): Matcher {
  const leadingWord = text.length > 0 && text.charCodeAt(0) !== SPACE;
  const words = text.trim();
  // each template character is one UTF-16 unit of the normalised text
  const units: number[] = [];
  for (let at = 0; at < text.length; at++) units.push(text.charCodeAt(at));
  const letters = units.filter((unit) => unit !== SPACE).length;
  const here: Matcher = (run, position, next) => {
    const said = run.text;
    if (leadingWord && said.charCodeAt(position) === SPACE) position++;
    for (let at = 0; at < units.length; at++) {
      const unit = units[at];
      if (unit === SPACE) {
        if (said.charCodeAt(position) === SPACE) position++;
        else if (!(position === 0 || position === run.len || said.charCodeAt(position - 1) === SPACE)) return false;
      } else {
        if (said.charCodeAt(position) !== unit) return false;
        position++;
      }
    }
    run.literal += letters;
    const ok = next(position);
    run.literal -= letters;
    return ok;
  };
  return (run, position, next) => {
    const open = run.open;
    if (!open) return here(run, position, next);
    // spaces between a slot and what follows it end no unknown words
    if (!words) return next(position);
    return endUnknownWords(run, open, (at) => run.text.startsWith(words, at), (after) => here(run, after, next));
  };
}

function seqMatcher(parts: Matcher[]): Matcher {
  if (parts.length === 0) return (_run, position, next) => next(position);
  if (parts.length === 1) return parts[0];
  const [first, ...rest] = parts;
  const then = seqMatcher(rest);
  return (run, position, next) => first(run, position, (after) => then(run, after, next));
}

function altMatcher(choices: Matcher[]): Matcher {
  return (run, position, next) => {
    for (const choice of choices) {
      tick(run);
      if (choice(run, position, next)) return true;
    }
    return false;
  };
}

/** The matcher of a resolved template; `lists` are the lists its block sees. */
export function matcherOf(node: Resolved, lists: Map<string, ListMatcher>): Matcher {
  switch (node.kind) {
    case 'text':
      return textMatcher(node.text);
    case 'seq':
      return seqMatcher(node.parts.map((part) => matcherOf(part, lists)));
    case 'alt':
      return altMatcher(node.parts.map((part) => matcherOf(part, lists)));
    case 'list':
      return listMatcher(node.list, node.slot, lists);
  }
}
