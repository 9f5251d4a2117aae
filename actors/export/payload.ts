// The text of each exported message: the record as `hearth replay --format json` prints it,
// secrets written "***" (store/redact.ts).
//
// Most records are entity states, and a state_changed record's old_state is the new_state of the
// entity's previous record: the same object, whose text the log's encoding already made
// (store/frozen-json.ts). So a record is written member by member, each state taken once per
// state object (its text, whether it may name a secret key, and its text with the secrets
// learnt so far hidden), and only a record where something may name a secret key is walked and
// written whole by the Redactor, as replay does. Either way the text is JSON.stringify's with
// secret values hidden; hiding works per member because a secret is a run of token characters
// and every member's text starts and ends with JSON punctuation or a number beside it.

import type { EventRecord } from '../../store/types.ts';
import { Redactor, isSecretKey, mayNameSecretKey } from '../../store/redact.ts';
import { knownJson } from '../../store/frozen-json.ts';

/** A state as written: null when its text may name a secret key. */
type WrittenState = { text: string; hidden: string; learnt: number } | null;

export class ExportPayloads {
  readonly #redactor = new Redactor();
  /** entity states are never changed once made, so what was written of one stays true */
  readonly #states = new WeakMap<object, WrittenState>();

  /** Remembers the secrets of a record that is never exported, to hide them wherever else they are quoted. */
  learn(record: EventRecord): void {
    this.#redactor.learn(record);
  }

  /** The message text of `record`. */
  text(record: EventRecord): string {
    const change = this.#entityChange(record);
    if (change !== null) return change;
    try {
      const text = this.#members(record as unknown as Record<string, unknown>, true);
      if (text !== null) return text;
    } catch (err) {
      // nested deeper than JSON.stringify goes: the Redactor's writer has no such limit
      if (!(err instanceof RangeError)) throw err;
    }
    const secretKeys = this.#redactor.learn(record);
    return this.#redactor.scrub(this.#redactor.json(record, secretKeys) ?? '');
  }

  /**
   * Most records: an entity's change as the entities write it (store/codec.ts decodes and the log
   * hands over records with exactly these fields in this order), written from a template. Null
   * for any other shape, or a state that may hold a secret key.
   */
  #entityChange(record: EventRecord): string | null {
    const data = record.data as Record<string, unknown> | null;
    if (record.type !== 'state_changed' || data === null || typeof data !== 'object' || Array.isArray(data)) return null;
    const keys = Object.keys(data);
    if (keys.length !== 3 || keys[0] !== 'entity_id' || keys[1] !== 'old_state' || keys[2] !== 'new_state' || typeof data.entity_id !== 'string') return null;
    if (!hasKeys(record, record.origin === undefined ? RECORD_KEYS : RECORD_KEYS_WITH_ORIGIN) || !hasKeys(record.context, CONTEXT_KEYS)) return null;
    const oldState = data.old_state === null ? 'null' : typeof data.old_state === 'object' ? this.#state(data.old_state as object) : null;
    const newState = data.new_state === null ? 'null' : typeof data.new_state === 'object' ? this.#state(data.new_state as object) : null;
    if (typeof oldState !== 'string' || typeof newState !== 'string') return null;
    const { context } = record;
    const head = `{"seq":${JSON.stringify(record.seq)},"time":${JSON.stringify(record.time)},"stream":${JSON.stringify(record.stream)},"type":"state_changed","data":{"entity_id":${JSON.stringify(data.entity_id)},"old_state":`;
    const tail =
      `},"context":{"id":${JSON.stringify(context.id)},"parent_id":${JSON.stringify(context.parent_id)},"user_id":${JSON.stringify(context.user_id)}}` +
      (record.origin === undefined ? '}' : `,"origin":${JSON.stringify(record.origin)}}`);
    return `${this.#redactor.scrub(head)}${oldState},"new_state":${newState}${this.#redactor.scrub(tail)}`;
  }

  /** The text of a plain object (the record, or its data), secrets hidden; null when a key may be secret. */
  #members(value: Record<string, unknown>, isRecord: boolean): string | null {
    const parts: string[] = [];
    for (const key of Object.keys(value)) {
      const member = value[key];
      if (isSecretKey(key)) return null;
      let text: string | null | undefined;
      if (member === null || typeof member !== 'object') text = this.#hidden(JSON.stringify(member) as string | undefined);
      else if (isRecord && key === 'data' && isPlain(member)) text = this.#members(member as Record<string, unknown>, false);
      else if (!isRecord && (key === 'old_state' || key === 'new_state')) text = this.#state(member);
      else text = this.#object(member);
      if (text === null) return null;
      if (text !== undefined) parts.push(`${this.#redactor.scrub(JSON.stringify(key))}:${text}`);
    }
    return `{${parts.join(',')}}`;
  }

  /** A state's text with today's secrets hidden: written once per state, hidden again only when more were learnt. */
  #state(state: object): string | null | undefined {
    let written = this.#states.get(state);
    if (written === undefined) {
      const text = knownJson(state) ?? (JSON.stringify(state) as string | undefined);
      if (text === undefined) return undefined;
      written = mayNameSecretKey(text) ? null : { text, hidden: this.#redactor.scrub(text), learnt: this.#redactor.learnt };
      this.#states.set(state, written);
    }
    if (written === null) return null;
    if (written.learnt !== this.#redactor.learnt) {
      written.hidden = this.#redactor.scrub(written.text);
      written.learnt = this.#redactor.learnt;
    }
    return written.hidden;
  }

  #object(value: object): string | null | undefined {
    const text = JSON.stringify(value) as string | undefined;
    if (text !== undefined && mayNameSecretKey(text)) return null;
    return this.#hidden(text);
  }

  #hidden(text: string | undefined): string | undefined {
    return text === undefined ? undefined : this.#redactor.scrub(text);
  }
}

const RECORD_KEYS = ['seq', 'time', 'stream', 'type', 'data', 'context'];
const RECORD_KEYS_WITH_ORIGIN = [...RECORD_KEYS, 'origin'];
const CONTEXT_KEYS = ['id', 'parent_id', 'user_id'];

/** True when `value`'s own keys are exactly `keys`, in that order (the order JSON.stringify writes them in). */
function hasKeys(value: object, keys: readonly string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && own.every((key, i) => key === keys[i]);
}

function isPlain(value: object): boolean {
  return !Array.isArray(value) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}
