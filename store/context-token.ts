import type { Context } from './types.ts';

// The refresh token whose request made a context. It is kept beside the context, not in it:
// contexts are written to clients as they are (JSON.stringify, spread copies, exact comparisons),
// and the wire shape {id, parent_id, user_id} must not grow. A WeakMap leaves the object itself
// untouched; the log stores the token in its own slot of the record (store/codec.ts) and puts it
// back beside the context of a record it reads.
const tokens = new WeakMap<Context, string>();

/** `context`, noted as made by a request authenticated with refresh token `tokenId`. */
export function withToken<C extends Context>(context: C, tokenId: string | undefined): C {
  if (typeof tokenId === 'string' && tokenId !== '') tokens.set(context, tokenId);
  return context;
}

/** The refresh token id noted for this context object, if any. */
export function tokenOf(context: Context | null | undefined): string | undefined {
  return context ? tokens.get(context) : undefined;
}

/**
 * Where a change nobody asked for came from, when it came from outside (an MQTT message:
 * `{ via: 'mqtt', topic }`). Kept beside the context for the same reason as the token: the
 * original sends no such field, so the wire never carries it; the log keeps it in a slot of its
 * own for replay and the explorer.
 */
export interface ContextSource {
  via: string;
  topic?: string;
}

const sources = new WeakMap<Context, ContextSource>();

/** `context`, noted as caused by `source` (an MQTT message and its topic). */
export function withSource<C extends Context>(context: C, source: ContextSource | undefined): C {
  if (source && typeof source.via === 'string' && source.via !== '') sources.set(context, source);
  return context;
}

/** The source noted for this context object, if any. */
export function sourceOf(context: Context | null | undefined): ContextSource | undefined {
  return context ? sources.get(context) : undefined;
}
