// What the sentence engine's tests share: a recognizer of one YAML text, the intent and slot
// values a sentence gives, and small name, area and floor lists given at match time.
import { compileSentences, parseSentenceYaml, type DynamicListValue, type RecognizeOptions } from '../../../actors/conversation/sentences/index.ts';

/** A recognizer of one YAML text. */
export function engine(yaml: string, file = 'en/test.yaml') {
  return compileSentences([parseSentenceYaml(yaml, file)]);
}

/** The intent name and slot values (value only) a sentence gives, or null. */
export function hit(r: ReturnType<typeof engine>, text: string, options?: RecognizeOptions) {
  const res = r.recognize(text, options);
  if (!res) return null;
  return { intent: res.intent, ...Object.fromEntries(Object.entries(res.slots).map(([k, v]) => [k, v.value])) };
}

/** Entity names with their domain and area as context. */
export const names: DynamicListValue[] = [
  { in: 'Kitchen Light', out: 'light.kitchen', context: { domain: 'light', area: 'kitchen' } },
  { in: 'Kitchen', out: 'switch.kitchen', context: { domain: 'switch', area: 'kitchen' } },
  { in: 'Garage Door', out: 'cover.garage', context: { domain: 'cover', area: 'garage' } },
  { in: 'Ceiling Fan', out: 'fan.ceiling', context: { domain: 'fan', area: 'living_room' } },
];
/** Areas, one of them with an alias. */
export const areas: DynamicListValue[] = [
  { in: 'Kitchen', out: 'kitchen' },
  { in: 'Living Room', out: 'living_room' },
  { in: 'Lounge', out: 'living_room' },
];
/** One floor. */
export const floors: DynamicListValue[] = [{ in: 'Upstairs', out: 'first' }];
/** The lists given at match time in most tests. */
export const lists = { name: names, area: areas, floor: floors };
