import { parseIntText } from '../../../machines/python/float.ts';
import * as cv from '../../voluptuous/cv.ts';
import type { Path } from '../../voluptuous/problems.ts';
import { Refusal } from '../../voluptuous/schema.ts';
import { ConfigProblem, DictReader, check, ensureList, isDict, pyStrOnly, refuse } from './read.ts';
import {
  booleanOrTemplate,
  entityId,
  entityIdsOrUuids,
  entityOfDomain,
  oneOf,
  positivePeriodTemplate,
  scriptVariables,
  stringList,
  sunEvent,
  template,
  templateDict,
  threshold,
  timeOrEntity,
  timePeriod,
  weekdays,
  type Period,
  type PeriodTemplate,
  type Template,
} from './validators.ts';

/**
 * Triggers as the original reads them: TRIGGER_SCHEMA's base (the kind under `trigger:`, the
 * old `platform:` taken for it, `id`, `variables`, `enabled`), then the kind's own schema
 * (homeassistant/components/homeassistant/triggers/*.py, sun, zone, tag, webhook, mqtt,
 * conversation).
 */

/** What every trigger may have. */
export interface TriggerBase {
  /** the kind of trigger (the old `platform:`) */
  trigger: string;
  /** the id a `trigger` condition and `trigger.id` name it by */
  id?: string;
  alias?: string;
  variables?: Record<string, unknown>;
  enabled?: boolean | Template;
}

/** `from`/`to` of a state trigger: one state, several, or null (a change of the state itself, no attribute change). */
export type StateMatch = string | string[] | null;

export interface StateTrigger extends TriggerBase {
  trigger: 'state';
  entity_id: string[];
  attribute?: string;
  from?: StateMatch | unknown;
  to?: StateMatch | unknown;
  not_from?: StateMatch | unknown;
  not_to?: StateMatch | unknown;
  for?: PeriodTemplate;
}

export interface NumericStateTrigger extends TriggerBase {
  trigger: 'numeric_state';
  entity_id: string[];
  attribute?: string;
  below?: number | string;
  above?: number | string;
  value_template?: Template;
  for?: PeriodTemplate;
}

export interface EventTrigger extends TriggerBase {
  trigger: 'event';
  event_type: Template[];
  event_data?: Record<string, unknown>;
  context?: Record<string, unknown>;
}

export interface HomeAssistantTrigger extends TriggerBase {
  trigger: 'homeassistant';
  event: 'start' | 'shutdown';
}

/** A time of day, an input_datetime/sensor entity, or an entity with an offset. */
export type TimeAt = string | { entity_id: string; offset?: Period };

export interface TimeTrigger extends TriggerBase {
  trigger: 'time';
  at: TimeAt[];
  weekday?: string[];
}

/** A time_pattern field: a number, `*`, or `/n` (every n). */
export type TimePatternValue = number | string;

export interface TimePatternTrigger extends TriggerBase {
  trigger: 'time_pattern';
  hours?: TimePatternValue;
  minutes?: TimePatternValue;
  seconds?: TimePatternValue;
}

export interface TemplateTrigger extends TriggerBase {
  trigger: 'template';
  value_template: Template;
  for?: PeriodTemplate;
}

export interface WebhookTrigger extends TriggerBase {
  trigger: 'webhook';
  webhook_id: string;
  allowed_methods: string[];
  local_only: boolean;
}

export interface ZoneTrigger extends TriggerBase {
  trigger: 'zone';
  entity_id: string[];
  zone: string;
  event: 'enter' | 'leave';
}

export interface SunTrigger extends TriggerBase {
  trigger: 'sun';
  event: 'sunrise' | 'sunset';
  offset: Period;
}

export interface TagTrigger extends TriggerBase {
  trigger: 'tag';
  tag_id: string[];
  device_id?: string[];
}

export interface ConversationTrigger extends TriggerBase {
  trigger: 'conversation';
  command: string[];
}

export interface MqttTrigger extends TriggerBase {
  trigger: 'mqtt';
  topic: string;
  payload?: Template;
  value_template?: Template;
  encoding: string;
  qos: 0 | 1 | 2;
}

/** A device's own trigger: checked by its integration, kept as written here. */
export interface DeviceTrigger extends TriggerBase {
  trigger: 'device';
  device_id: string;
  domain: string;
  [key: string]: unknown;
}

export type Trigger =
  | StateTrigger
  | NumericStateTrigger
  | EventTrigger
  | HomeAssistantTrigger
  | TimeTrigger
  | TimePatternTrigger
  | TemplateTrigger
  | WebhookTrigger
  | ZoneTrigger
  | SunTrigger
  | TagTrigger
  | ConversationTrigger
  | MqttTrigger
  | DeviceTrigger;

const BASE_KEYS = ['trigger', 'id', 'alias', 'variables', 'enabled'];

/** A list of triggers (TRIGGER_SCHEMA: vol.All(cv.ensure_list, [...])). */
export function readTriggers(value: unknown, path: Path): Trigger[] {
  return ensureList(value).map((item, i) => readTrigger(item, [...path, i]));
}

/** The old `platform:` as `trigger:` (both at once refused, as the original does). */
function renamed(value: unknown, path: Path): Record<string, unknown> {
  if (!isDict(value)) throw refuse('expected a dictionary', path, value);
  if (!('platform' in value)) return value;
  if ('trigger' in value) throw refuse("Cannot specify both 'platform' and 'trigger'. Please use 'trigger' only.", path, value);
  const { platform, ...rest } = value;
  return { trigger: platform, ...rest };
}

function readBase(r: DictReader, kind: string): TriggerBase {
  const base: TriggerBase = { trigger: kind };
  if (r.has('id')) base.id = r.checked('id', pyStrOnly);
  if (r.has('alias')) base.alias = r.checked('alias', pyStrOnly);
  if (r.has('variables')) base.variables = r.read('variables', scriptVariables);
  if (r.has('enabled')) base.enabled = r.checked('enabled', booleanOrTemplate);
  return base;
}

/** A state trigger's from/to: vol.Any(str, [str], None), or anything where an attribute is matched. */
function stateMatch(attribute: boolean) {
  return (value: unknown, path: Path): unknown => {
    if (attribute || value === null) return value;
    if (Array.isArray(value)) return value.map((s, i) => check([...path, i], s, pyStrOnly));
    return check(path, value, pyStrOnly);
  };
}

/** TimePattern(maximum): a number in range, `*`, or `/n`. */
function timePattern(maximum: number) {
  return (value: unknown): TimePatternValue => {
    if (value === '*') return value;
    let n: number | undefined;
    if (typeof value === 'string') n = parseIntText(value.startsWith('/') ? value.slice(1) : value);
    else if (typeof value === 'number' && Number.isInteger(value)) n = value;
    if (n === undefined) throw new Refusal('invalid time_pattern value');
    if (n < 0 || n > maximum) throw new Refusal(`must be a value between 0 and ${maximum}`);
    return typeof value === 'string' && value.startsWith('/') ? value : n;
  };
}

const TIME_AT_REFUSAL =
  "Expected HH:MM, HH:MM:SS, an Entity ID with domain 'input_datetime' or 'sensor', or a combination of a timestamp sensor entity and an offset.";

const WEBHOOK_METHODS = ['HEAD', 'GET', 'POST', 'PUT'];

/** One trigger: its kind's schema after the base one. */
export function readTrigger(value: unknown, path: Path): Trigger {
  const raw = renamed(value, path);
  // the base schema first: the kind, an id, variables (other keys are the kind's)
  const base = new DictReader(raw, path);
  const kind = base.need('trigger', (v, p) => check(p, v, pyStrOnly));
  readBase(base, kind);
  try {
    return readKind(kind, raw, path);
  } catch (err) {
    if (err instanceof ConfigProblem) err.late = true;
    throw err;
  }
}

/** The kind's own schema (the trigger platform's TRIGGER_SCHEMA). */
function readKind(kind: string, raw: Record<string, unknown>, path: Path): Trigger {
  const keys = (...own: string[]) => [...BASE_KEYS, ...own];
  switch (kind) {
    case 'state': {
      const r = new DictReader(raw, path, keys('entity_id', 'attribute', 'from', 'to', 'not_from', 'not_to', 'for'));
      const t: StateTrigger = { ...readBase(r, kind), trigger: 'state', entity_id: r.need('entity_id', (v, p) => check(p, v, entityIdsOrUuids)) };
      if (r.has('attribute')) t.attribute = r.raw.attribute as string;
      r.exclusive('from', 'from', 'not_from');
      r.exclusive('to', 'to', 'not_to');
      const match = stateMatch(t.attribute !== undefined);
      for (const key of ['from', 'to', 'not_from', 'not_to'] as const) if (Object.hasOwn(raw, key)) t[key] = match(raw[key], r.at(key));
      if (r.has('for')) t.for = r.read('for', positivePeriodTemplate);
      return t;
    }
    case 'numeric_state': {
      const r = new DictReader(raw, path, keys('entity_id', 'attribute', 'below', 'above', 'value_template', 'for'));
      const t: NumericStateTrigger = { ...readBase(r, kind), trigger: 'numeric_state', entity_id: r.need('entity_id', (v, p) => check(p, v, entityIdsOrUuids)) };
      if (r.has('attribute')) t.attribute = r.raw.attribute as string;
      if (r.has('below')) t.below = r.checked('below', threshold);
      if (r.has('above')) t.above = r.checked('above', threshold);
      if (r.has('value_template')) t.value_template = r.checked('value_template', template);
      if (r.has('for')) t.for = r.read('for', positivePeriodTemplate);
      r.atLeastOne('below', 'above');
      return t;
    }
    case 'event': {
      const r = new DictReader(raw, path, keys('event_type', 'event_data', 'context'));
      const t: EventTrigger = {
        ...readBase(r, kind),
        trigger: 'event',
        event_type: r.need('event_type', (v, p) => {
          const types = ensureList(v).map((e, i) => check([...p, i], e, template));
          // state_reported is too frequent to trigger on (a template naming it is not looked at)
          if (types.includes('state_reported')) throw refuse("Can't listen to state_reported in event trigger", p, v);
          return types;
        }),
      };
      if (r.has('event_data')) t.event_data = r.checked('event_data', templateDict);
      if (r.has('context')) t.context = r.checked('context', templateDict);
      return t;
    }
    case 'homeassistant': {
      const r = new DictReader(raw, path, keys('event'));
      return { ...readBase(r, kind), trigger: 'homeassistant', event: r.need('event', (v, p) => check(p, v, oneOf(['start', 'shutdown']))) };
    }
    case 'time': {
      const r = new DictReader(raw, path, keys('at', 'weekday'));
      const timeOrEntityOf = timeOrEntity(['input_datetime', 'sensor']);
      const t: TimeTrigger = {
        ...readBase(r, kind),
        trigger: 'time',
        at: r.need('at', (v, p) =>
          ensureList(v).map((at, i): TimeAt => {
            const where = [...p, i];
            try {
              if (!isDict(at)) return check(where, at, timeOrEntityOf);
              const a = new DictReader(at, where, ['entity_id', 'offset']);
              const entity: TimeAt = { entity_id: a.need('entity_id', (e, ep) => check(ep, e, entityOfDomain(['sensor']))) };
              if (a.has('offset')) entity.offset = a.read('offset', timePeriod);
              return entity;
            } catch (err) {
              // one vol.Any with its own message for every way an item fails
              if (err instanceof ConfigProblem) throw refuse(TIME_AT_REFUSAL, where, at);
              throw err;
            }
          }),
        ),
      };
      if (r.has('weekday')) t.weekday = r.read('weekday', weekdays);
      return t;
    }
    case 'time_pattern': {
      const r = new DictReader(raw, path, keys('hours', 'minutes', 'seconds'));
      const t: TimePatternTrigger = { ...readBase(r, kind), trigger: 'time_pattern' };
      if (r.has('hours')) t.hours = r.checked('hours', timePattern(23));
      if (r.has('minutes')) t.minutes = r.checked('minutes', timePattern(59));
      if (r.has('seconds')) t.seconds = r.checked('seconds', timePattern(59));
      r.atLeastOne('hours', 'minutes', 'seconds');
      return t;
    }
    case 'template': {
      const r = new DictReader(raw, path, keys('value_template', 'for'));
      const t: TemplateTrigger = { ...readBase(r, kind), trigger: 'template', value_template: r.need('value_template', (v, p) => check(p, v, template)) };
      if (r.has('for')) t.for = r.read('for', positivePeriodTemplate);
      return t;
    }
    case 'webhook': {
      const r = new DictReader(raw, path, keys('webhook_id', 'allowed_methods', 'local_only'));
      const methods = r.read('allowed_methods', (v, p) =>
        ensureList(v).map((m, i) =>
          check([...p, i], m, (x) => {
            const upper = typeof x === 'string' ? x.toUpperCase() : x;
            if (typeof upper !== 'string' || !WEBHOOK_METHODS.includes(upper)) throw new Refusal(`value must be one of [${WEBHOOK_METHODS.map((w) => `'${w}'`).join(', ')}]`);
            return upper;
          }),
        ),
      );
      if (methods && new Set(methods).size !== methods.length) throw r.error('allowed_methods', `contains duplicate items: ${JSON.stringify(methods)}`);
      return {
        ...readBase(r, kind),
        trigger: 'webhook',
        webhook_id: r.required('webhook_id', cv.string),
        allowed_methods: methods ?? ['POST', 'PUT'],
        local_only: r.optional('local_only', cv.boolean, true),
      };
    }
    case 'zone': {
      const r = new DictReader(raw, path, keys('entity_id', 'zone', 'event'));
      return {
        ...readBase(r, kind),
        trigger: 'zone',
        entity_id: r.need('entity_id', (v, p) => check(p, v, entityIdsOrUuids)),
        zone: r.need('zone', (v, p) => check(p, v, entityId)),
        event: r.checked('event', oneOf(['enter', 'leave'])) ?? 'enter',
      };
    }
    case 'sun': {
      const r = new DictReader(raw, path, keys('event', 'offset'));
      return {
        ...readBase(r, kind),
        trigger: 'sun',
        event: r.need('event', (v, p) => check(p, v, sunEvent)),
        offset: r.read('offset', timePeriod) ?? { ms: 0 },
      };
    }
    case 'tag': {
      const r = new DictReader(raw, path, keys('tag_id', 'device_id'));
      const t: TagTrigger = { ...readBase(r, kind), trigger: 'tag', tag_id: r.need('tag_id', stringList) };
      if (r.has('device_id')) t.device_id = r.read('device_id', stringList);
      return t;
    }
    case 'conversation': {
      const r = new DictReader(raw, path, keys('command'));
      return { ...readBase(r, kind), trigger: 'conversation', command: r.need('command', stringList) };
    }
    case 'mqtt': {
      const r = new DictReader(raw, path, keys('topic', 'payload', 'value_template', 'encoding', 'qos'));
      const t: MqttTrigger = {
        ...readBase(r, kind),
        trigger: 'mqtt',
        topic: r.need('topic', (v, p) => check(p, v, mqttTopic)),
        encoding: r.optional('encoding', cv.string, 'utf-8'),
        qos: r.checked('qos', (v) => {
          const n = cv.convert(cv.coerceInt, v);
          if (n !== 0 && n !== 1 && n !== 2) throw new Refusal('value must be one of [0, 1, 2]');
          return n as 0 | 1 | 2;
        }) ?? 0,
      };
      if (r.has('payload')) t.payload = r.checked('payload', template);
      if (r.has('value_template')) t.value_template = r.checked('value_template', template);
      return t;
    }
    case 'device': {
      const r = new DictReader(raw, path);
      const { metadata: _metadata, ...rest } = raw;
      return {
        ...rest,
        ...readBase(r, kind),
        trigger: 'device',
        device_id: r.need('device_id', (v, p) => check(p, v, pyStrOnly)),
        domain: r.need('domain', (v, p) => check(p, v, pyStrOnly)),
      };
    }
    default:
      throw refuse(`Invalid trigger '${kind}' specified`, [...path, 'trigger'], kind);
  }
}

/** mqtt's valid_subscribe_topic (or a template of one): wildcards only as whole levels, `#` last. */
function mqttTopic(value: unknown): string {
  const topic = cv.convert(cv.string, value);
  if (/\{\{|\{%/.test(topic)) return template(topic);
  if (!topic.length) throw new Refusal('Topic topic must not be empty.');
  if (topic.includes('\0')) throw new Refusal('MQTT topic name/filter must not contain null character.');
  const levels = topic.split('/');
  levels.forEach((level, i) => {
    if (level.includes('#') && (level !== '#' || i !== levels.length - 1)) throw new Refusal('Multi-level wildcard must be the last character in the topic.');
    if (level.includes('+') && level !== '+') throw new Refusal('Single-level wildcard must occupy an entire level of the filter');
  });
  return topic;
}
