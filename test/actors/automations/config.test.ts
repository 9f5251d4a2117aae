// automation: and script: read from configuration.yaml as the original validates them: the
// editor's automations.yaml, old hand-written ones, each kind normalised, invalid ones reported.
import t from 'tap';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfiguration } from '../../../actors/core/configuration.ts';
import { readAction } from '../../../actors/automations/config/actions.ts';
import { readAutomation, readAutomationSections } from '../../../actors/automations/config/automation.ts';
import { readCondition } from '../../../actors/automations/config/conditions.ts';
import { ConfigProblem } from '../../../actors/automations/config/read.ts';
import { readScriptSections } from '../../../actors/automations/config/script.ts';
import { readTrigger } from '../../../actors/automations/config/triggers.ts';

/** configuration.yaml (and the files beside it) loaded as Hearth loads them; the sections returned. */
async function sectionsOf(files: Record<string, string>): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-automations-'));
  try {
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    return (await loadConfiguration(dir)).sections;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The message a value is refused with, read by `read`. */
function refusal(read: () => unknown): string | undefined {
  try {
    read();
    return undefined;
  } catch (err) {
    if (err instanceof ConfigProblem) return err.message;
    throw err;
  }
}

const EDITOR_AUTOMATIONS = `- id: '1732780800001'
  alias: Porch light at sunset
  description: ''
  triggers:
  - trigger: sun
    event: sunset
    offset: -00:30:00
  conditions:
  - condition: state
    entity_id: binary_sensor.someone_home
    state: 'on'
  actions:
  - action: light.turn_on
    metadata: {}
    data:
      brightness_pct: 80
    target:
      entity_id: light.porch
  mode: single
- id: '1732780800002'
  alias: Motion in the hall
  description: Lights on while there is motion
  triggers:
  - trigger: state
    entity_id:
    - binary_sensor.hall_motion
    from: 'off'
    to: 'on'
    id: moving
  - trigger: state
    entity_id:
    - binary_sensor.hall_motion
    to: 'off'
    for:
      hours: 0
      minutes: 2
      seconds: 0
    id: still
  conditions: []
  actions:
  - choose:
    - conditions:
      - condition: trigger
        id: moving
      sequence:
      - action: light.turn_on
        target:
          area_id: hall
    - conditions:
      - condition: trigger
        id: still
      sequence:
      - action: light.turn_off
        target:
          area_id: hall
  mode: restart
`;

t.test("an automations.yaml as the original's editor writes it", async (t) => {
  const sections = await sectionsOf({ 'configuration.yaml': 'automation: !include automations.yaml\n', 'automations.yaml': EDITOR_AUTOMATIONS });
  const { automations, invalid } = readAutomationSections(sections);
  t.same(invalid, []);
  t.equal(automations.length, 2);
  const [porch, hall] = automations;
  t.same(porch, {
    id: '1732780800001',
    alias: 'Porch light at sunset',
    description: '',
    trace: {},
    mode: 'single',
    max: 10,
    max_exceeded: 'WARNING',
    triggers: [{ trigger: 'sun', event: 'sunset', offset: { ms: -1_800_000 } }],
    conditions: [{ condition: 'state', entity_id: ['binary_sensor.someone_home'], match: 'all', state: 'on' }],
    // the editor's metadata is the frontend's: dropped, as the original drops it
    actions: [{ action: 'light.turn_on', data: { brightness_pct: 80 }, target: { entity_id: ['light.porch'] } }],
  });
  t.equal(hall.mode, 'restart');
  t.same(hall.triggers[1], { trigger: 'state', id: 'still', entity_id: ['binary_sensor.hall_motion'], to: 'off', for: { ms: 120_000 } });
  t.same(hall.conditions, []);
  t.same(hall.actions[0], {
    choose: [
      { conditions: [{ condition: 'trigger', id: ['moving'] }], sequence: [{ action: 'light.turn_on', target: { area_id: ['hall'] } }] },
      { conditions: [{ condition: 'trigger', id: ['still'] }], sequence: [{ action: 'light.turn_off', target: { area_id: ['hall'] } }] },
    ],
  });
});

t.test('old hand-written automations: old keys normalised, `automation <label>:` sections merged', async (t) => {
  const sections = await sectionsOf({
    'configuration.yaml': `automation:
  - alias: Wake up
    trigger:
      platform: time
      at: '07:00:00'
    condition:
      condition: time
      weekday: [mon, tue, wed, thu, fri]
    action:
      - service: light.turn_on
        entity_id: light.bedroom, light.landing
        data_template:
          brightness: "{{ 10 * 25 }}"
      - delay: '00:10:00'
      - service_template: "{{ 'switch.turn_on' }}"
        data:
          entity_id: switch.kettle
automation old:
  alias: Sunday notice
  initial_state: 'off'
  trigger:
    - platform: homeassistant
      event: start
  condition: "{{ now().weekday() == 6 }}"
  action:
    service: notify.notify
    data:
      message: Good morning
`,
  });
  const { automations, invalid } = readAutomationSections(sections);
  t.same(invalid, []);
  t.equal(automations.length, 2);
  const [wake, notice] = automations;
  t.same(wake.triggers, [{ trigger: 'time', at: ['07:00:00'] }]);
  t.same(wake.conditions, [{ condition: 'time', weekday: ['mon', 'tue', 'wed', 'thu', 'fri'] }]);
  t.same(wake.actions, [
    { action: 'light.turn_on', target: { entity_id: ['light.bedroom', 'light.landing'] }, data_template: { brightness: '{{ 10 * 25 }}' } },
    { delay: { ms: 600_000 } },
    { action: "{{ 'switch.turn_on' }}", data: { entity_id: 'switch.kettle' } },
  ]);
  t.equal(notice.initial_state, false);
  t.same(notice.triggers, [{ trigger: 'homeassistant', event: 'start' }]);
  t.same(notice.conditions, [{ condition: 'template', value_template: '{{ now().weekday() == 6 }}' }]);
  t.same(notice.actions, [{ action: 'notify.notify', data: { message: 'Good morning' } }]);
});

t.test('each trigger kind, normalised', async (t) => {
  const cases: [string, unknown, unknown][] = [
    ['state, old platform key', { platform: 'state', entity_id: 'light.a, Light.B', to: null }, { trigger: 'state', entity_id: ['light.a', 'light.b'], to: null }],
    ['state with attribute takes any value', { trigger: 'state', entity_id: 'climate.x', attribute: 'temp', to: 21 }, { trigger: 'state', entity_id: ['climate.x'], attribute: 'temp', to: 21 }],
    ['state for a template', { trigger: 'state', entity_id: 'light.a', for: '{{ states("input_number.m") | int }}' }, { trigger: 'state', entity_id: ['light.a'], for: { template: '{{ states("input_number.m") | int }}' } }],
    [
      'numeric_state',
      { trigger: 'numeric_state', entity_id: 'sensor.t', above: '20.5', below: 'input_number.max', for: 30 },
      { trigger: 'numeric_state', entity_id: ['sensor.t'], above: 20.5, below: 'input_number.max', for: { ms: 30_000 } },
    ],
    ['event', { trigger: 'event', event_type: 'tag_scanned', event_data: { tag_id: 'x' } }, { trigger: 'event', event_type: ['tag_scanned'], event_data: { tag_id: 'x' } }],
    ['homeassistant', { trigger: 'homeassistant', event: 'shutdown' }, { trigger: 'homeassistant', event: 'shutdown' }],
    ['time, entity and offset', { trigger: 'time', at: ['input_datetime.alarm', { entity_id: 'sensor.phone_next_alarm', offset: '-00:05' }] }, { trigger: 'time', at: ['input_datetime.alarm', { entity_id: 'sensor.phone_next_alarm', offset: { ms: -300_000 } }] }],
    ['time_pattern', { trigger: 'time_pattern', minutes: '/5', seconds: 0 }, { trigger: 'time_pattern', minutes: '/5', seconds: 0 }],
    ['template', { trigger: 'template', value_template: "{{ is_state('sun.sun', 'below_horizon') }}" }, { trigger: 'template', value_template: "{{ is_state('sun.sun', 'below_horizon') }}" }],
    ['webhook defaults', { trigger: 'webhook', webhook_id: 'doorbell' }, { trigger: 'webhook', webhook_id: 'doorbell', allowed_methods: ['POST', 'PUT'], local_only: true }],
    ['webhook methods upper-cased', { trigger: 'webhook', webhook_id: 'x', allowed_methods: ['get'], local_only: false }, { trigger: 'webhook', webhook_id: 'x', allowed_methods: ['GET'], local_only: false }],
    ['zone', { trigger: 'zone', entity_id: 'person.anne', zone: 'zone.home' }, { trigger: 'zone', entity_id: ['person.anne'], zone: 'zone.home', event: 'enter' }],
    ['sun', { trigger: 'sun', event: 'SUNRISE' }, { trigger: 'sun', event: 'sunrise', offset: { ms: 0 } }],
    ['tag', { trigger: 'tag', tag_id: 'A7-6B', device_id: 'abc' }, { trigger: 'tag', tag_id: ['A7-6B'], device_id: ['abc'] }],
    ['conversation', { trigger: 'conversation', command: 'good night' }, { trigger: 'conversation', command: ['good night'] }],
    ['mqtt', { trigger: 'mqtt', topic: 'home/+/door', payload: 'open', qos: '1' }, { trigger: 'mqtt', topic: 'home/+/door', payload: 'open', encoding: 'utf-8', qos: 1 }],
    [
      'id, variables, enabled',
      { trigger: 'event', event_type: 'x', id: 'first', variables: { who: '{{ trigger.event.data.who }}' }, enabled: 'false' },
      { trigger: 'event', event_type: ['x'], id: 'first', variables: { who: '{{ trigger.event.data.who }}' }, enabled: false },
    ],
  ];
  for (const [name, raw, expected] of cases) t.same(readTrigger(raw, ['triggers', 0]), expected, name);
});

t.test('each condition kind, normalised', async (t) => {
  const cases: [string, unknown, unknown][] = [
    ['state, several states, any', { condition: 'state', entity_id: ['light.a', 'light.b'], state: ['on', 'dim'], match: 'ANY' }, { condition: 'state', entity_id: ['light.a', 'light.b'], match: 'any', state: ['on', 'dim'] }],
    ['state for', { condition: 'state', entity_id: 'light.a', state: 'on', for: '00:01:30' }, { condition: 'state', entity_id: ['light.a'], match: 'all', state: 'on', for: { ms: 90_000 } }],
    ['numeric_state', { condition: 'numeric_state', entity_id: 'sensor.t', below: 5, value_template: '{{ state.state | float / 2 }}' }, { condition: 'numeric_state', entity_id: ['sensor.t'], below: 5, value_template: '{{ state.state | float / 2 }}' }],
    ['template', { condition: 'template', value_template: '{{ true }}' }, { condition: 'template', value_template: '{{ true }}' }],
    ['template shorthand', '{{ is_state("sun.sun", "above_horizon") }}', { condition: 'template', value_template: '{{ is_state("sun.sun", "above_horizon") }}' }],
    ['time', { condition: 'time', after: '22:00', before: 'input_datetime.morning' }, { condition: 'time', after: '22:00', before: 'input_datetime.morning' }],
    ['sun', { condition: 'sun', after: 'sunset', after_offset: '-01:00' }, { condition: 'sun', after: 'sunset', after_offset: { ms: -3_600_000 } }],
    ['zone', { condition: 'zone', entity_id: 'person.anne', zone: 'zone.work' }, { condition: 'zone', entity_id: ['person.anne'], zone: ['zone.work'] }],
    ['trigger', { condition: 'trigger', id: 'first' }, { condition: 'trigger', id: ['first'] }],
    [
      'or',
      { condition: 'or', conditions: ['{{ a }}', { condition: 'state', entity_id: 'light.a', state: 'on' }] },
      { condition: 'or', conditions: [{ condition: 'template', value_template: '{{ a }}' }, { condition: 'state', entity_id: ['light.a'], match: 'all', state: 'on' }] },
    ],
    ['and shorthand', { and: [{ condition: 'trigger', id: 'x' }], alias: 'both' }, { condition: 'and', conditions: [{ condition: 'trigger', id: ['x'] }], alias: 'both' }],
    ['not shorthand', { not: { condition: 'trigger', id: 'x' } }, { condition: 'not', conditions: [{ condition: 'trigger', id: ['x'] }] }],
    ['a list under condition is and', { condition: [{ condition: 'trigger', id: 'x' }] }, { condition: 'and', conditions: [{ condition: 'trigger', id: ['x'] }] }],
    ['enabled', { condition: 'template', value_template: '{{ 1 }}', enabled: false }, { condition: 'template', value_template: '{{ 1 }}', enabled: false }],
  ];
  for (const [name, raw, expected] of cases) t.same(readCondition(raw, ['conditions', 0]), expected, name);
});

t.test('each action kind, normalised', async (t) => {
  const call = { action: 'light.turn_on', target: { entity_id: ['light.a'] } };
  const cases: [string, unknown, unknown][] = [
    [
      'service call, every field',
      { action: 'Light.Turn_On', target: { entity_id: 'light.a', device_id: 'd1', area_id: ['kitchen'] }, data: { brightness: 3 }, response_variable: 'r', continue_on_error: 'yes', alias: 'Lamp' },
      { action: 'light.turn_on', target: { entity_id: ['light.a'], device_id: ['d1'], area_id: ['kitchen'] }, data: { brightness: 3 }, response_variable: 'r', continue_on_error: true, alias: 'Lamp' },
    ],
    ['service: is action:', { service: 'light.turn_on', target: { entity_id: 'light.a' } }, call],
    ['a script called', { action: 'script.bedtime', data: { room: 'attic' } }, { action: 'script.bedtime', data: { room: 'attic' } }],
    ['delay text', { delay: '01:02:03' }, { delay: { ms: 3_723_000 } }],
    ['delay seconds', { delay: 2.5 }, { delay: { ms: 2_500 } }],
    ['delay dict', { delay: { minutes: 1, milliseconds: 500 } }, { delay: { ms: 60_500 } }],
    ['delay template', { delay: '{{ 5 }}' }, { delay: { template: '{{ 5 }}' } }],
    ['delay dict of templates', { delay: { minutes: '{{ m }}' } }, { delay: { fields: { minutes: '{{ m }}' } } }],
    ['wait_template', { wait_template: '{{ x }}', timeout: 60, continue_on_timeout: false }, { wait_template: '{{ x }}', timeout: { ms: 60_000 }, continue_on_timeout: false }],
    [
      'wait_for_trigger',
      { wait_for_trigger: { platform: 'state', entity_id: 'binary_sensor.door', to: 'off' }, timeout: '00:05' },
      { wait_for_trigger: [{ trigger: 'state', entity_id: ['binary_sensor.door'], to: 'off' }], timeout: { ms: 300_000 } },
    ],
    ['event', { event: 'my_event', event_data: { a: 1 } }, { event: 'my_event', event_data: { a: 1 } }],
    ['condition', { condition: 'state', entity_id: 'light.a', state: 'on' }, { condition: 'state', entity_id: ['light.a'], match: 'all', state: 'on' }],
    ['condition template', { condition: '{{ ok }}' }, { condition: 'template', value_template: '{{ ok }}' }],
    ['condition shorthand', { or: ['{{ a }}'] }, { condition: 'or', conditions: [{ condition: 'template', value_template: '{{ a }}' }] }],
    [
      'choose with default',
      { choose: { conditions: '{{ a }}', sequence: { service: 'light.turn_on', entity_id: 'light.a' } }, default: { delay: 1 } },
      { choose: [{ conditions: [{ condition: 'template', value_template: '{{ a }}' }], sequence: [call] }], default: [{ delay: { ms: 1000 } }] },
    ],
    [
      'if/then/else',
      { if: '{{ a }}', then: { delay: 1 }, else: [{ stop: 'done' }] },
      { if: [{ condition: 'template', value_template: '{{ a }}' }], then: [{ delay: { ms: 1000 } }], else: [{ stop: 'done' }] },
    ],
    ['repeat count', { repeat: { count: '3', sequence: { delay: 1 } } }, { repeat: { count: 3, sequence: [{ delay: { ms: 1000 } }] } }],
    [
      'repeat while',
      { repeat: { while: [{ condition: 'state', entity_id: 'light.a', state: 'on' }], sequence: [{ delay: 1 }] } },
      { repeat: { while: [{ condition: 'state', entity_id: ['light.a'], match: 'all', state: 'on' }], sequence: [{ delay: { ms: 1000 } }] } },
    ],
    ['repeat until', { repeat: { until: '{{ done }}', sequence: [] } }, { repeat: { until: [{ condition: 'template', value_template: '{{ done }}' }], sequence: [] } }],
    ['repeat for_each', { repeat: { for_each: ['a', '{{ b }}'], sequence: [] } }, { repeat: { for_each: ['a', '{{ b }}'], sequence: [] } }],
    [
      'parallel',
      { parallel: [{ sequence: [{ delay: 1 }] }, { service: 'light.turn_on', entity_id: 'light.a' }] },
      { parallel: [{ sequence: [{ delay: { ms: 1000 } }] }, { sequence: [call] }] },
    ],
    ['sequence', { sequence: [{ delay: 1 }], alias: 'steps' }, { sequence: [{ delay: { ms: 1000 } }], alias: 'steps' }],
    ['variables', { variables: { n: '{{ 1 + 1 }}', m: 3 } }, { variables: { n: '{{ 1 + 1 }}', m: 3 } }],
    ['stop with response', { stop: 'done', response_variable: 'result' }, { stop: 'done', response_variable: 'result' }],
    ['stop with error', { stop: 'broken', error: true }, { stop: 'broken', error: true }],
    ['enabled as a template', { delay: 1, enabled: '{{ debug }}' }, { delay: { ms: 1000 }, enabled: '{{ debug }}' }],
  ];
  for (const [name, raw, expected] of cases) t.same(readAction(raw, ['actions', 0]), expected, name);
});

t.test('a refused trigger, condition or action: the original words, at the field at fault', async (t) => {
  const cases: [string, () => unknown, string][] = [
    ['both platform and trigger', () => readTrigger({ platform: 'state', trigger: 'state', entity_id: 'a.b' }, ['triggers', 0]), "Cannot specify both 'platform' and 'trigger'. Please use 'trigger' only. @ data['triggers'][0]"],
    ['no kind', () => readTrigger({ entity_id: 'a.b' }, ['triggers', 0]), "required key not provided @ data['triggers'][0]['trigger']. Got None"],
    ['unknown kind', () => readTrigger({ trigger: 'sunshine' }, ['triggers', 0]), "Invalid trigger 'sunshine' specified for dictionary value @ data['triggers'][0]['trigger']. Got 'sunshine'"],
    ['bad entity id', () => readTrigger({ trigger: 'state', entity_id: 'kitchen' }, ['triggers', 0]), "Entity kitchen is neither a valid entity ID nor a valid UUID for dictionary value @ data['triggers'][0]['entity_id']. Got 'kitchen'"],
    ['numeric_state without limits', () => readTrigger({ trigger: 'numeric_state', entity_id: 'sensor.t' }, ['triggers', 0]), 'must contain at least one of below, above.'],
    ['time at neither a time nor an entity', () => readTrigger({ trigger: 'time', at: ['7am'] }, ['triggers', 0]), "Expected HH:MM, HH:MM:SS, an Entity ID with domain 'input_datetime' or 'sensor', or a combination of a timestamp sensor entity and an offset. @ data['triggers'][0]['at'][0]. Got '7am'"],
    ['event state_reported', () => readTrigger({ trigger: 'event', event_type: 'state_reported' }, ['triggers', 0]), "Can't listen to state_reported in event trigger"],
    ['state from and not_from', () => readTrigger({ trigger: 'state', entity_id: 'light.a', from: 'on', not_from: 'off' }, ['triggers', 0]), "two or more values in the same group of exclusion 'from'"],
    ['time_pattern out of range', () => readTrigger({ trigger: 'time_pattern', minutes: 61 }, ['triggers', 0]), "must be a value between 0 and 59 for dictionary value @ data['triggers'][0]['minutes']. Got 61"],
    ['extra key', () => readTrigger({ trigger: 'sun', event: 'sunset', entity_id: 'sun.sun' }, ['triggers', 0]), "extra keys not allowed @ data['triggers'][0]['entity_id']. Got 'sun.sun'"],
    ['unquoted on is a bool', () => readCondition({ condition: 'state', entity_id: 'light.a', state: true }, ['conditions', 0]), "expected str for dictionary value @ data['conditions'][0]['state']. Got True"],
    ['unknown condition', () => readCondition({ condition: 'sometimes' }, ['conditions', 0]), "Unexpected value for condition: 'sometimes'. Expected and, device, not, numeric_state, or, state, sun, template, time, trigger, zone @ data['conditions'][0]"],
    ['not a template', () => readCondition('always', ['conditions', 0]), "Expected a dictionary @ data['conditions'][0]. Got 'always'"],
    ['every key of the automation at once, sorted', () => readAutomation({ alias: 'bad_automation', color: 'red' }), "extra keys not allowed @ data['color']. Got 'red'\nrequired key not provided @ data['actions']. Got None\nrequired key not provided @ data['triggers']. Got None"],
    ['a trigger kind only after the schema', () => readAutomation({ triggers: { trigger: 'zone' }, actions: [], mode: 'x' }), "value must be one of ['parallel', 'queued', 'restart', 'single'] for dictionary value @ data['mode']. Got 'x'"],
    ['one condition alone is item 0', () => readAutomation({ triggers: [], conditions: { condition: 'zone' }, actions: [] }), "required key not provided @ data['conditions'][0]['entity_id']. Got None"],
    ['bad template syntax', () => readCondition({ condition: 'template', value_template: '{{ 1 + }}' }, ['conditions', 0]), "invalid template (TemplateSyntaxError"],
    ['unknown action', () => readAction({ light: 'on' }, ['actions', 0]), "Unable to determine action @ data['actions'][0]. Got {'light': 'on'}"],
    ['both service and action', () => readAction({ service: 'a.b', action: 'a.b' }, ['actions', 0]), "Cannot specify both 'service' and 'action'. Please use 'action' only."],
    ['bad service', () => readAction({ action: 'turn_on' }, ['actions', 0]), "Service turn_on does not match format <domain>.<name> for dictionary value @ data['actions'][0]['action']. Got 'turn_on'"],
    ['bad delay', () => readAction({ delay: 'soon' }, ['actions', 0]), "offset soon should be format 'HH:MM', 'HH:MM:SS' or 'HH:MM:SS.F' for dictionary value @ data['actions'][0]['delay']. Got 'soon'"],
    ['negative delay', () => readAction({ delay: -1 }, ['actions', 0]), 'Time period should be positive'],
    ['repeat without a kind', () => readAction({ repeat: { sequence: [] } }, ['actions', 0]), 'must contain at least one of count, for_each, while, until.'],
    ['repeat with two', () => readAction({ repeat: { count: 1, while: [], sequence: [] } }, ['actions', 0]), "two or more values in the same group of exclusion 'repeat'"],
    ['stop error with response', () => readAction({ stop: 'x', error: true, response_variable: 'r' }, ['actions', 0]), 'not allowed to add a response to an error stop action'],
  ];
  for (const [name, read, words] of cases) {
    const message = refusal(read);
    t.ok(message?.startsWith(words), `${name}: ${message}`);
    if (name.includes('at once') || name.includes('after the schema')) t.equal(message, words, name);
  }
});

t.test('an invalid automation is reported with id, alias and field; the others load', async (t) => {
  const sections = await sectionsOf({
    'configuration.yaml': 'automation: !include automations.yaml\n',
    'automations.yaml': `- id: good_one
  alias: Good
  triggers:
    - trigger: homeassistant
      event: start
  actions:
    - event: started
- id: bad_trigger
  alias: Bad trigger
  triggers:
    - trigger: state
      entity_id: not an entity
  actions: []
- alias: No actions
  triggers:
    - trigger: homeassistant
      event: start
- id: bad_mode
  triggers: []
  actions: []
  mode: sometimes
- id: bad_action
  alias: Bad action
  trigger:
    platform: homeassistant
    event: start
  action:
    - delay: later
- id: waits_wrongly
  triggers: []
  actions:
    - wait_for_trigger:
        - trigger: zone
          entity_id: person.anne
- id: 42
  alias: A number id
  triggers: []
  actions: []
- id: both
  trigger: []
  triggers: []
  actions: []
- id: max_one
  triggers: []
  actions: []
  mode: queued
  max: 1
`,
  });
  const { automations, invalid } = readAutomationSections(sections);
  t.same(
    automations.map((a) => a.id),
    ['good_one'],
  );
  t.same(
    invalid.map((i) => [i.id, i.alias, i.status]),
    [
      ['bad_trigger', 'Bad trigger', 'failed_triggers'],
      [undefined, 'No actions', 'failed_schema'],
      ['bad_mode', undefined, 'failed_schema'],
      ['bad_action', 'Bad action', 'failed_schema'],
      ['waits_wrongly', undefined, 'failed_actions'],
      [undefined, 'A number id', 'failed_schema'],
      ['both', undefined, 'failed_schema'],
      ['max_one', undefined, 'failed_schema'],
    ],
  );
  t.same(
    invalid.map((i) => i.message),
    [
      "Invalid config for 'automation' (id: bad_trigger, alias: Bad trigger): Entity not an entity is neither a valid entity ID nor a valid UUID for dictionary value @ data['triggers'][0]['entity_id']. Got 'not an entity'",
      "Invalid config for 'automation' (alias: No actions): required key not provided @ data['actions']. Got None",
      "Invalid config for 'automation' (id: bad_mode): value must be one of ['parallel', 'queued', 'restart', 'single'] for dictionary value @ data['mode']. Got 'sometimes'",
      "Invalid config for 'automation' (id: bad_action, alias: Bad action): offset later should be format 'HH:MM', 'HH:MM:SS' or 'HH:MM:SS.F' for dictionary value @ data['actions'][0]['delay']. Got 'later'",
      "Invalid config for 'automation' (id: waits_wrongly): required key not provided @ data['actions'][0]['wait_for_trigger'][0]['zone']. Got None",
      "Invalid config for 'automation' (alias: A number id): expected str for dictionary value @ data['id']. Got 42",
      "Invalid config for 'automation' (id: both): Cannot specify both 'trigger' and 'triggers'. Please use 'triggers' only.. Got {'id': 'both', 'trigger': [], 'triggers': [], 'actions': []}",
      "Invalid config for 'automation' (id: max_one): value must be at least 2 for dictionary value @ data['max']. Got 1",
    ],
  );
});

t.test('mode, max and max_exceeded: the defaults and the values', async (t) => {
  const base = { triggers: [], actions: [] };
  t.match(readAutomation(base), { mode: 'single', max: 10, max_exceeded: 'WARNING' });
  t.match(readAutomation({ ...base, mode: 'parallel', max: '25', max_exceeded: 'silent' }), { mode: 'parallel', max: 25, max_exceeded: 'SILENT' });
  t.match(readAutomation({ ...base, variables: { a: 1 }, trigger_variables: { b: 2 }, initial_state: true }), { variables: { a: 1 }, trigger_variables: { b: 2 }, initial_state: true });
});

t.test('script: a mapping of names to scripts', async (t) => {
  const sections = await sectionsOf({
    'configuration.yaml': `script:
  bedtime:
    alias: Bedtime
    icon: mdi:bed
    description: Lights out
    fields:
      room:
        name: Room
        required: true
        selector:
          area: {}
    mode: queued
    variables:
      level: 0
    sequence:
      - service: light.turn_off
        target:
          area_id: "{{ room }}"
  wake:
    sequence:
      delay: 5
script more:
  wake:
    sequence: []
  turn_on:
    sequence: []
  Bad Name:
    sequence: []
  broken:
    alias: Broken
    sequence:
      - wait_template:
`,
  });
  const { scripts, invalid, warnings } = readScriptSections(sections);
  t.same(scripts, [
    {
      object_id: 'bedtime',
      alias: 'Bedtime',
      icon: 'mdi:bed',
      description: 'Lights out',
      fields: { room: { advanced: false, required: true, name: 'Room', selector: { area: {} } } },
      variables: { level: 0 },
      mode: 'queued',
      max: 10,
      max_exceeded: 'WARNING',
      sequence: [{ action: 'light.turn_off', target: { area_id: ['{{ room }}'] } }],
    },
    { object_id: 'wake', description: '', fields: {}, mode: 'single', max: 10, max_exceeded: 'WARNING', sequence: [{ delay: { ms: 5000 } }] },
  ]);
  t.same(warnings, ["Duplicate script detected with name: 'wake'"]);
  t.same(
    invalid.map((i) => i.message),
    [
      "Invalid config for 'script' (object id: turn_on): A script's object_id must not be one of reload, toggle, turn_off, turn_on",
      "Invalid config for 'script' (object id: Bad Name): invalid slug Bad Name (try bad_name)",
      "Invalid config for 'script' (object id: broken, alias: Broken): template value is None for dictionary value @ data['sequence'][0]['wait_template']. Got None",
    ],
  );
});

t.test('empty sections have nothing in them', async (t) => {
  const sections = await sectionsOf({ 'configuration.yaml': 'automation: !include automations.yaml\nautomation ui: []\nscript: {}\n', 'automations.yaml': '' });
  t.same(readAutomationSections(sections), { automations: [], invalid: [] });
  t.same(readScriptSections(sections), { scripts: [], invalid: [], warnings: [] });
});
