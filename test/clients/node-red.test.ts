// Node-RED 4 with node-red-contrib-home-assistant-websocket 0.80, unchanged, against Hearth:
// the server node connects, flows see and change Hearth's states, and the device node's editor
// routes (translations, device actions and triggers) answer without bringing Node-RED down.
import t from 'tap';
import { startTestHearth, onboard, api } from '../helpers/hearth.ts';
import { authedClient } from '../helpers/ws.ts';
import { startNodeRed } from '../helpers/node-red.ts';
import { eventually } from '../helpers/wait.ts';

// Node-RED schedules the time node on its own clock: both sides read wall times in this zone
const ZONE = 'America/New_York';
const CONFIG = `core:
  time_zone: ${ZONE}
input_boolean:
  porch:
    name: Porch light
    initial: false
input_datetime:
  wake_up:
    name: Wake up
    has_date: true
    has_time: true
light:
  - platform: virtual
    name: Desk lamp
    unique_id: desk_lamp
`;

const SERVER = 'hearth-server';
const TAB = 'hearth-tab';

/** A function node that appends what reaches it to the global `seen` list, tagged `kind`. */
function recorder(id: string, kind: string) {
  const func = `const seen = global.get('seen') || [];\nseen.push({ kind: ${JSON.stringify(kind)}, topic: msg.topic, payload: msg.payload });\nglobal.set('seen', seen);\nreturn null;`;
  return { id, type: 'function', z: TAB, name: `record ${kind}`, func, outputs: 1, timeout: 0, noerr: 0, initialize: '', finalize: '', libs: [], x: 500, y: 100, wires: [[]] };
}

function flows() {
  return [
    { id: TAB, type: 'tab', label: 'Hearth', disabled: false, info: '' },
    {
      id: SERVER,
      type: 'server',
      name: 'Hearth',
      version: 6,
      addon: false,
      rejectUnauthorizedCerts: true,
      ha_boolean: ['y', 'yes', 'true', 'on', 'home', 'open'],
      connectionDelay: false,
      cacheJson: false,
      heartbeat: false,
      heartbeatInterval: 30,
      areaSelector: 'friendlyName',
      deviceSelector: 'friendlyName',
      entitySelector: 'friendlyName',
      statusSeparator: ': ',
      statusYear: 'hidden',
      statusMonth: 'short',
      statusDay: 'numeric',
      statusHourCycle: 'default',
      statusTimeFormat: 'h:m',
      enableGlobalContextStore: false,
    },
    {
      id: 'outside-changed',
      type: 'server-state-changed',
      z: TAB,
      name: 'outside',
      server: SERVER,
      version: 6,
      outputs: 1,
      exposeAsEntityConfig: '',
      entities: { entity: ['sensor.outside'], substring: [], regex: [] },
      outputInitially: false,
      stateType: 'str',
      ifState: '',
      ifStateType: 'str',
      ifStateOperator: 'is',
      outputOnlyOnStateChange: true,
      for: '0',
      forType: 'num',
      forUnits: 'minutes',
      ignorePrevStateNull: false,
      ignorePrevStateUnknown: false,
      ignorePrevStateUnavailable: false,
      ignoreCurrentStateUnknown: false,
      ignoreCurrentStateUnavailable: false,
      outputProperties: [
        { property: 'payload', propertyType: 'msg', value: '', valueType: 'entityState' },
        { property: 'topic', propertyType: 'msg', value: '', valueType: 'triggerId' },
      ],
      x: 200,
      y: 100,
      wires: [['record-state']],
    },
    recorder('record-state', 'state'),
    {
      id: 'wake-up-time',
      type: 'ha-time',
      z: TAB,
      name: 'wake up',
      server: SERVER,
      version: 4,
      exposeAsEntityConfig: '',
      entityId: 'input_datetime.wake_up',
      property: '',
      offset: '0',
      offsetType: 'num',
      offsetUnits: 'minutes',
      randomOffset: false,
      repeatDaily: false,
      outputProperties: [
        { property: 'payload', propertyType: 'msg', value: '', valueType: 'entityState' },
        { property: 'topic', propertyType: 'msg', value: '', valueType: 'triggerId' },
      ],
      sunday: true,
      monday: true,
      tuesday: true,
      wednesday: true,
      thursday: true,
      friday: true,
      saturday: true,
      ignorePastDate: true,
      x: 200,
      y: 200,
      wires: [['record-time']],
    },
    recorder('record-time', 'time'),
    { id: 'seen-in', type: 'http in', z: TAB, name: '', url: '/seen', method: 'get', upload: false, swaggerDoc: '', x: 100, y: 300, wires: [['seen-read']] },
    { id: 'seen-read', type: 'function', z: TAB, name: 'read seen', func: "msg.payload = global.get('seen') || [];\nreturn msg;", outputs: 1, timeout: 0, noerr: 0, initialize: '', finalize: '', libs: [], x: 300, y: 300, wires: [['seen-out']] },
    { id: 'seen-out', type: 'http response', z: TAB, name: '', statusCode: '', headers: {}, x: 500, y: 300, wires: [] },
    { id: 'toggle-in', type: 'http in', z: TAB, name: '', url: '/toggle', method: 'post', upload: false, swaggerDoc: '', x: 100, y: 400, wires: [['toggle-porch']] },
    {
      id: 'toggle-porch',
      type: 'api-call-service',
      z: TAB,
      name: 'toggle porch',
      server: SERVER,
      version: 7,
      debugenabled: false,
      action: 'input_boolean.toggle',
      floorId: [],
      areaId: [],
      deviceId: [],
      entityId: ['input_boolean.porch'],
      labelId: [],
      data: '',
      dataType: 'jsonata',
      mergeContext: '',
      mustacheAltTags: false,
      outputProperties: [],
      queue: 'none',
      blockInputOverrides: true,
      domain: 'input_boolean',
      service: 'toggle',
      x: 300,
      y: 400,
      wires: [['toggle-out']],
    },
    { id: 'toggle-out', type: 'http response', z: TAB, name: '', statusCode: '', headers: {}, x: 500, y: 400, wires: [] },
  ];
}

/** `YYYY-MM-DD HH:MM:SS` of an instant on the wall clock of ZONE. */
function wallTime(ms: number): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone: ZONE, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(ms)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}

t.test('Node-RED flows run against Hearth and its device editor does not crash it', async (t) => {
  const { base, hearth } = await startTestHearth(t, { config: CONFIG });
  const tokens = await onboard(base);
  const ws = await authedClient(base, tokens.access_token);
  t.teardown(() => ws.ws.close());
  ws.send({ id: 1, type: 'auth/long_lived_access_token', client_name: 'Node-RED', lifespan: 365 });
  const longLived = (await ws.until((m) => m.id === 1)).result as string;
  const rest = api(base, tokens.access_token);

  const red = await startNodeRed(t, { flows: flows(), credentials: { [SERVER]: { host: base, access_token: longLived } }, env: { TZ: ZONE } });
  const admin = async (path: string) => {
    const res = await fetch(`${red.base}${path}`);
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  };
  const seen = async (kind: string) => ((await admin('/seen')).json as Array<{ kind: string; topic: string; payload: unknown }>).filter((e) => e.kind === kind);

  await eventually('the server node connecting', async () => (red.output().includes(`Connected to ${base}`) ? true : undefined));
  // the package keeps the states it loaded: once it serves them, its state subscription is in place
  const porch = await eventually('Node-RED holding the states', async () => {
    const { status, json } = await admin(`/homeassistant/states/${SERVER}?entityId=input_boolean.porch`);
    return status === 200 && json?.state ? json : undefined;
  });
  t.equal(porch.state, 'off', "Node-RED's copy of the porch switch is Hearth's");

  await t.test('an events: state node fires on a POSTed change', async (t) => {
    t.equal((await rest('POST', '/api/states/sensor.outside', { state: '7', attributes: { unit_of_measurement: '°C' } })).status, 201);
    const [event] = await eventually('the state node firing', async () => {
      const events = await seen('state');
      return events.length ? events : undefined;
    });
    t.same(event, { kind: 'state', topic: 'sensor.outside', payload: '7' });
  });

  await t.test('an action node toggles an input_boolean', async (t) => {
    const res = await fetch(`${red.base}/toggle`, { method: 'POST' });
    t.equal(res.status, 200);
    const state = await eventually('the porch switch turning on', async () => {
      const { json } = await rest('GET', '/api/states/input_boolean.porch');
      return json.state === 'on' ? json : undefined;
    });
    t.equal(state.context.user_id !== null, true, 'the call was made by the token');
  });

  await t.test('a time node fires at the time an input_datetime holds', async (t) => {
    // whole seconds, far enough ahead for the node to have scheduled it
    const at = Math.ceil((Date.now() + 4000) / 1000) * 1000;
    const wall = wallTime(at);
    const set = await rest('POST', '/api/services/input_datetime/set_datetime', { entity_id: 'input_datetime.wake_up', datetime: wall });
    t.equal(set.status, 200, `set_datetime answered ${set.status}: ${set.status === 200 ? 'ok' : set.text}`);
    const [fired] = await eventually('the time node firing', async () => {
      const events = await seen('time');
      return events.length ? events : undefined;
    });
    t.same(fired, { kind: 'time', topic: 'input_datetime.wake_up', payload: wall });
    t.ok(Date.now() >= at - 1000, 'it fired when the time came, not before');
  });

  await t.test("the device node's editor routes answer", async (t) => {
    const lamp = hearth.registries.entities().find((e) => e.entity_id === 'light.desk_lamp')!;
    const deviceId = lamp.device_id!;
    const translations = await admin(`/homeassistant/translations/${SERVER}?cat=device_automation&lang=en`);
    t.equal(translations.status, 200);
    t.equal(translations.json['component.light.device_automation.action_type.turn_on'], 'Turn on {entity_name}');
    t.equal(translations.json['component.light.device_automation.trigger_type.turned_off'], '{entity_name} turned off');

    const actions = await admin(`/homeassistant/deviceActions/${SERVER}?deviceId=${deviceId}`);
    t.equal(actions.json.success, true, actions.json.message);
    const turnOn = actions.json.data.find((a: any) => a.type === 'turn_on');
    t.same(turnOn, { type: 'turn_on', device_id: deviceId, entity_id: lamp.id, domain: 'light', metadata: { secondary: false } });
    t.same(actions.json.data.map((a: any) => a.type).sort(), ['brightness_decrease', 'brightness_increase', 'flash', 'toggle', 'turn_off', 'turn_on']);

    const capabilities = await admin(`/homeassistant/deviceActionCapabilities/${SERVER}?event=${encodeURIComponent(JSON.stringify(turnOn))}`);
    t.same(capabilities.json, {
      success: true,
      data: [
        { name: 'brightness_pct', optional: true, type: 'float', valueMin: 0, valueMax: 100 },
        { name: 'flash', optional: true, type: 'select', options: [['short', 'short'], ['long', 'long']] },
      ],
    });

    const triggers = await admin(`/homeassistant/deviceTriggers/${SERVER}?deviceId=${deviceId}`);
    t.equal(triggers.json.success, true, triggers.json.message);
    t.same(triggers.json.data.map((a: any) => a.type).sort(), ['changed_states', 'turned_off', 'turned_on']);
    const turnedOn = triggers.json.data.find((a: any) => a.type === 'turned_on');
    t.same(turnedOn, { platform: 'device', type: 'turned_on', device_id: deviceId, entity_id: lamp.id, domain: 'light', metadata: { secondary: false } });
    const triggerCapabilities = await admin(`/homeassistant/deviceTriggerCapabilities/${SERVER}?event=${encodeURIComponent(JSON.stringify(turnedOn))}`);
    t.same(triggerCapabilities.json, { success: true, data: [{ name: 'for', optional: true, type: 'positive_time_period_dict' }] });

    for (const category of ['entity_component', 'services', 'exceptions', 'title']) {
      const answer = await admin(`/homeassistant/translations/${SERVER}?cat=${category}&lang=de`);
      t.equal(answer.status, 200, `${category} translations answer`);
    }
    t.equal((await admin(`/homeassistant/translations/${SERVER}?cat=services&lang=en`)).json['component.input_boolean.services.toggle.name'], 'Toggle');
  });

  await t.test('tags listed through the tag route', async (t) => {
    ws.send({ id: 2, type: 'tag/create', tag_id: 'kitchen-nfc', name: 'Kitchen' });
    t.equal((await ws.until((m) => m.id === 2)).success, true);
    const tags = await admin(`/homeassistant/tags/${SERVER}?update=1`);
    t.same(tags.json, [{ id: 'kitchen-nfc', name: 'Kitchen' }]);
  });

  t.notMatch(red.output(), /\[error\]/, 'Node-RED logged no error');
  t.ok(red.running(), 'Node-RED is still running');
  t.equal((await admin('/settings')).status, 200, 'and still serves its editor');
});
