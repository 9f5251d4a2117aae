// A parsed template made ready to match: expansion rules inlined, permutations expanded into
// alternatives, text normalised. Also what the word index and the ordering of templates read
// from such a tree: the words every match contains, the lists it names, its chunks of text.
import { normalizeTemplateText } from './normalize.ts';
import type { TemplateNode } from './parse.ts';

/** A template with its rules inlined and its permutations expanded. */
export type Resolved =
  | { kind: 'text'; text: string }
  | { kind: 'seq'; parts: Resolved[] }
  | { kind: 'alt'; parts: Resolved[] }
  | { kind: 'list'; list: string; slot: string };

const EMPTY: Resolved = { kind: 'seq', parts: [] };

/** A template that cannot be compiled (an unknown or recursive expansion rule). */
export class CompileError extends Error {}

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  const out: T[][] = [];
  items.forEach((item, at) => {
    for (const rest of permutations([...items.slice(0, at), ...items.slice(at + 1)])) out.push([item, ...rest]);
  });
  return out;
}

/** Resolves a parsed template; `rule` finds an expansion rule's body, `stack` the rules being expanded. */
export function resolve(node: TemplateNode, rule: (name: string) => TemplateNode | undefined, stack: string[]): Resolved {
  switch (node.t) {
    case 'text':
      return { kind: 'text', text: normalizeTemplateText(node.v) };
    case 'seq':
      return { kind: 'seq', parts: node.c.map((child) => resolve(child, rule, stack)) };
    case 'alt': {
      const parts = node.c.map((child) => resolve(child, rule, stack));
      return { kind: 'alt', parts: node.optional ? [...parts, EMPTY] : parts };
    }
    case 'perm': {
      const parts = node.c.map((child) => resolve(child, rule, stack));
      const space: Resolved = { kind: 'text', text: ' ' };
      return { kind: 'alt', parts: permutations(parts).map((order) => ({ kind: 'seq', parts: order.flatMap((part, at) => (at ? [space, part] : [part])) })) };
    }
    case 'list':
      return { kind: 'list', list: node.list, slot: node.slot };
    case 'rule': {
      if (stack.includes(node.name)) throw new CompileError(`expansion rule <${node.name}> refers to itself (${[...stack, node.name].map((name) => `<${name}>`).join(' -> ')})`);
      const body = rule(node.name);
      if (!body) throw new CompileError(`unknown expansion rule <${node.name}>`);
      return resolve(body, rule, [...stack, node.name]);
    }
  }
}

// words every match of a node contains (used to index templates)
function startsAtWord(node: Resolved): boolean {
  if (node.kind === 'text') return node.text.startsWith(' ');
  if (node.kind === 'list') return true;
  if (node.kind === 'seq') return node.parts.length > 0 && startsAtWord(node.parts[0]);
  return node.parts.length > 0 && node.parts.every(startsAtWord);
}
function endsAtWord(node: Resolved): boolean {
  if (node.kind === 'text') return node.text.endsWith(' ');
  if (node.kind === 'list') return true;
  if (node.kind === 'seq') return node.parts.length > 0 && endsAtWord(node.parts[node.parts.length - 1]);
  return node.parts.length > 0 && node.parts.every(endsAtWord);
}

/**
 * The words every match of `node` contains; `left` and `right` say whether a word boundary is
 * known before and after it, so a piece of text cut short at either end is no word.
 */
export function requiredWords(node: Resolved, left: boolean, right: boolean): Set<string> {
  const out = new Set<string>();
  if (node.kind === 'text') {
    const pieces = node.text.split(' ');
    pieces.forEach((word, at) => {
      if (word && (at > 0 || left) && (at < pieces.length - 1 || right)) out.add(word);
    });
  } else if (node.kind === 'seq') {
    node.parts.forEach((part, at) => {
      const wordBefore = at === 0 ? left : endsAtWord(node.parts[at - 1]);
      const wordAfter = at === node.parts.length - 1 ? right : startsAtWord(node.parts[at + 1]);
      for (const word of requiredWords(part, wordBefore, wordAfter)) out.add(word);
    });
  } else if (node.kind === 'alt') {
    const sets = node.parts.map((part) => requiredWords(part, left, right));
    for (const word of sets[0] ?? []) if (sets.every((set) => set.has(word))) out.add(word);
  }
  return out;
}

/** How many pieces of literal text a template has (a wildcard template with more is tried first). */
export function textChunks(node: Resolved): number {
  if (node.kind === 'text') return node.text.trim() ? 1 : 0;
  if (node.kind === 'list') return 0;
  return node.parts.reduce((sum, part) => sum + textChunks(part), 0);
}

/** Adds the names of the lists a template uses to `out`. */
export function listNames(node: Resolved, out: Set<string>): void {
  if (node.kind === 'list') out.add(node.list);
  else if (node.kind !== 'text') for (const part of node.parts) listNames(part, out);
}
