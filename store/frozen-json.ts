// The JSON text of objects that are never changed once made (entity states), written once.
//
// A state_changed record's new_state is the next record's old_state: the same object, which the
// log stores as a reference (store/codec.ts) and the NATS exporter writes out in full. The text
// the log's encoding made of it is kept here, per object, for the exporter to reuse rather than
// serialise the same state twice more. A WeakMap: the text lives as long as the state does.

const texts = new WeakMap<object, string>();

/** JSON.stringify(value), kept for the next caller; only for values never changed afterwards. */
export function frozenJson(value: object): string {
  let text = texts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value) as string;
    texts.set(value, text);
  }
  return text;
}

/** The text frozenJson() made of `value`, if it did. */
export function knownJson(value: object): string | undefined {
  return texts.get(value);
}
