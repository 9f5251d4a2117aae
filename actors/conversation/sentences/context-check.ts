// A block's requires_context and excludes_context, checked against the context of a match (the
// match-time context merged with the contexts of the values said).
import type { IntentBlock } from './types.ts';

/** What a block's context rules made of a match's context. */
export interface ContextCheck {
  /** slots copied from the context (`slot: true` or a slot name) */
  slots: Record<string, { value: unknown; text: string }>;
  /** required keys missing (only when unmatched slots are allowed: reported, not failed) */
  missing: string[];
}

function sameValue(left: unknown, right: unknown): boolean {
  return left === right || String(left) === String(right);
}

/** A context value as given: plain, or `{value, text}` (as the original allows). */
function unpack(given: unknown): { value: unknown; text: string } {
  if (typeof given === 'object' && given !== null && !Array.isArray(given)) {
    const pair = given as { value?: unknown; text?: unknown };
    return { value: pair.value ?? null, text: typeof pair.text === 'string' ? pair.text : '' };
  }
  return { value: given, text: typeof given === 'string' ? given : given === undefined || given === null ? '' : String(given) };
}

/** Checks excludes/requires_context against the merged context; null when it fails. */
export function checkContext(block: IntentBlock, context: Record<string, unknown>, allowMissing: boolean): ContextCheck | null {
  for (const [key, rule] of Object.entries(block.excludesContext ?? {})) {
    if (!(key in context)) continue;
    const bad = typeof rule === 'object' && rule !== null && !Array.isArray(rule) ? (rule.value ?? null) : rule;
    const have = unpack(context[key]).value;
    if (Array.isArray(bad) ? bad.some((value) => sameValue(value, have)) : bad === have || (bad !== null && have !== null && sameValue(bad, have))) return null;
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
    const have = unpack(context[key]);
    const present = have.value !== undefined && have.value !== null;
    const ok = present && (want === null || (Array.isArray(want) ? want.some((value) => sameValue(value, have.value)) : sameValue(want, have.value)));
    if (ok) {
      if (copyTo) out.slots[copyTo] = have;
      continue;
    }
    if (!allowMissing) return null;
    out.missing.push(key);
  }
  return out;
}
