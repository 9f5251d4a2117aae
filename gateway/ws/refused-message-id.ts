/** How many bytes at each end of a message are looked at for its id. */
const SCAN_BYTES = 64;

// JSON's own whitespace, and an id as the envelope allows it: a positive integer without a sign
const LEADING_ID = /^[ \t\n\r]*\{[ \t\n\r]*"id"[ \t\n\r]*:[ \t\n\r]*([1-9][0-9]{0,15})[ \t\n\r]*[,}]/;
const TRAILING_ID = /[{,][ \t\n\r]*"id"[ \t\n\r]*:[ \t\n\r]*([1-9][0-9]{0,15})[ \t\n\r]*\}[ \t\n\r]*$/;

/**
 * The id of a message refused before it was read (nested too deep, not UTF-8, not JSON), when
 * its top-level object names it first (`{"id": 7, ...`, as most clients write it) or last
 * (`..., "id": 7}`, as home-assistant-js-websocket does: it adds the id after the rest). The
 * member right after the opening brace, or right before the closing one, is a member of the
 * top-level object, so a look at both ends finds it without reading the message between them.
 * Undefined when neither end names a usable id.
 */
export function refusedMessageId(bytes: Uint8Array): number | undefined {
  const text = (from: number, to: number) => Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from).toString('latin1');
  const end = bytes.byteLength;
  // a duplicated key counts as its last occurrence, as JSON.parse counts it
  const found = TRAILING_ID.exec(text(Math.max(0, end - SCAN_BYTES), end)) ?? LEADING_ID.exec(text(0, Math.min(end, SCAN_BYTES)));
  if (!found) return undefined;
  const id = Number(found[1]);
  return Number.isSafeInteger(id) ? id : undefined;
}
