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
