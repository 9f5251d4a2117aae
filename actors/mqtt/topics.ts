import { InvalidValue, toStr } from './schema.ts';

/**
 * MQTT topic names and filters, checked as the original's valid_topic, valid_subscribe_topic and
 * valid_publish_topic check them (with their messages), and matched as a broker matches them.
 */

const MAX_TOPIC_BYTES = 65535;

/** valid_topic: a non-empty topic of at most 65535 UTF-8 bytes, without NUL or control characters. */
export function validTopic(value: unknown): string {
  const topic = toStr(value);
  const bytes = Buffer.byteLength(topic, 'utf8');
  if (bytes === 0) throw new InvalidValue('MQTT topic name/filter must not be empty.');
  if (bytes > MAX_TOPIC_BYTES) throw new InvalidValue('MQTT topic name/filter must not be longer than 65535 encoded bytes.');
  // eslint-disable-next-line no-control-regex
  if (topic.includes('\0')) throw new InvalidValue('MQTT topic name/filter must not contain null character.');
  // eslint-disable-next-line no-control-regex
  if (/[\u0001-\u001f\u007f-\u009f]/.test(topic) || /[\ufdd0-\ufdef\ufffe\uffff]/.test(topic)) {
    throw new InvalidValue('MQTT topic name/filter must not contain control characters.');
  }
  return topic;
}

/** valid_subscribe_topic: `+` takes a whole level, `#` only the last one. */
export function validSubscribeTopic(value: unknown): string {
  const topic = validTopic(value);
  const levels = topic.split('/');
  levels.forEach((level, i) => {
    if (level.includes('+') && level !== '+') throw new InvalidValue('Single-level wildcard must occupy an entire level of the filter');
    if (level.includes('#')) {
      if (i !== levels.length - 1) throw new InvalidValue('Multi-level wildcard must be the last character in the topic filter.');
      if (level !== '#') throw new InvalidValue('Multi-level wildcard must be after a topic level separator.');
    }
  });
  return topic;
}

/** valid_publish_topic: no wildcards. */
export function validPublishTopic(value: unknown): string {
  const topic = validTopic(value);
  if (topic.includes('+') || topic.includes('#')) throw new InvalidValue('Wildcards cannot be used in topic names');
  return topic;
}

/** Whether a topic name matches a subscription filter (`+` one level, `#` the rest; `$` topics only when named). */
export function topicMatches(filter: string, topic: string): boolean {
  if (filter === topic) return true;
  const f = filter.split('/');
  const t = topic.split('/');
  // a wildcard in the first level never matches the broker's own $SYS-like topics
  if (topic.startsWith('$') && (f[0] === '+' || f[0] === '#')) return false;
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return true;
    if (i >= t.length) return false;
    if (f[i] !== '+' && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}

/** A QoS: 0, 1 or 2 (valid_qos_schema: vol.Coerce(int), vol.In([0, 1, 2])). */
export function toQos(value: unknown): 0 | 1 | 2 {
  const n = typeof value === 'string' && /^\s*[012]\s*$/.test(value) ? Number(value) : value;
  if (n === 0 || n === 1 || n === 2) return n;
  if (typeof n !== 'number' && typeof n !== 'boolean') throw new InvalidValue('expected int');
  throw new InvalidValue('value must be one of [0, 1, 2]');
}
