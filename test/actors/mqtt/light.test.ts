// MQTT lights in the original's three schemas against a real Mosquitto: a zigbee2mqtt colour bulb
// (JSON schema, its discovery as Koenkk/zigbee2mqtt test/extensions/homeassistant.test.ts
// publishes a colour light: brightness_scale 254, mireds, supported_color_modes [xy, color_temp]),
// a Tasmota-style default-schema light (one state topic read by several value templates,
// on_command_type: brightness, Tasmota's abbreviations), an optimistic default-schema light with
// command templates, and a template-schema light (the templates of the original's
// tests/components/mqtt/test_light_template.py). What they show follows the original's
// LightEntity state attributes (homeassistant/components/light/__init__.py) and
// mqtt/light/schema_basic.py, schema_json.py, schema_template.py; what service calls publish
// follows their async_turn_on / async_turn_off, seen by an MQTT.js subscriber.
import t from 'tap';
import { hsToRgb, hsToXy, kelvinToHs, pyRound, rgbToHs, rgbToXy, xyToHs, xyToRgb } from '../../../machines/color.ts';
import { mqttScene, eventually } from '../../helpers/mqtt.ts';

/** The colour attributes the original shows for a colour temperature. */
function ctColors(kelvin: number) {
  const [h, s] = kelvinToHs(kelvin);
  return { hs_color: [pyRound(h, 3), pyRound(s, 3)], rgb_color: hsToRgb(h, s), xy_color: hsToXy(h, s) };
}

const EFFECTS = ['blink', 'breathe', 'okay', 'channel_change', 'finish_effect', 'stop_effect'];

t.test('json schema: a zigbee2mqtt colour bulb', async (t) => {
  const s = await mqttScene(t);
  await s.publish('zigbee2mqtt/bridge/state', { state: 'online' });
  await s.publish('homeassistant/light/0x0017880103ab1234/light/config', {
    availability: [{ topic: 'zigbee2mqtt/bridge/state', value_template: '{{ value_json.state }}' }],
    brightness: true,
    brightness_scale: 254,
    command_topic: 'zigbee2mqtt/living_bulb/set',
    device: { identifiers: ['zigbee2mqtt_0x0017880103ab1234'], name: 'Living bulb', manufacturer: 'Signify Netherlands B.V.', model: 'Hue White and color ambiance E26/E27', model_id: '9290022166' },
    effect: true,
    effect_list: EFFECTS,
    max_mireds: 500,
    min_mireds: 153,
    json_attributes_topic: 'zigbee2mqtt/living_bulb',
    name: null,
    object_id: 'living_bulb',
    default_entity_id: 'light.living_bulb',
    origin: { name: 'Zigbee2MQTT', sw: '2.1.0', url: 'https://www.zigbee2mqtt.io' },
    schema: 'json',
    state_topic: 'zigbee2mqtt/living_bulb',
    supported_color_modes: ['xy', 'color_temp'],
    unique_id: '0x0017880103ab1234_light_zigbee2mqtt',
  });
  await s.exist('light.living_bulb');
  const capabilities = { min_color_temp_kelvin: 2000, max_color_temp_kelvin: 6535, effect_list: EFFECTS, supported_color_modes: ['color_temp', 'xy'] };
  const unknown = await s.until('light.living_bulb', (x) => x.state === 'unknown');
  t.same(unknown.attributes, {
    ...capabilities,
    effect: null, color_mode: null, brightness: null, color_temp_kelvin: null, hs_color: null, rgb_color: null, xy_color: null,
    friendly_name: 'Living bulb', supported_features: 44,
  }, 'a bulb that has said nothing: its capabilities, every state attribute None');
  const entry = await s.entry('light.living_bulb');
  t.same(entry.capabilities, capabilities, 'the registry holds its capabilities');

  // the device reports colour temperature in mireds, brightness on its 254 scale
  await s.publish('zigbee2mqtt/living_bulb', { state: 'ON', brightness: 254, color_mode: 'color_temp', color_temp: 370, linkquality: 120 }, false);
  const ct = await s.until('light.living_bulb', (x) => x.state === 'on');
  t.same(ct.attributes, {
    ...capabilities,
    effect: null, color_mode: 'color_temp', brightness: 255, color_temp_kelvin: 2702, ...ctColors(2702),
    linkquality: 120, friendly_name: 'Living bulb', supported_features: 44,
  }, 'mireds as kelvin, 254 as 255; the JSON attributes keep what the light does not block');

  await s.publish('zigbee2mqtt/living_bulb', { state: 'ON', brightness: 127, color_mode: 'xy', color: { x: 0.7006, y: 0.2993 }, effect: 'okay' }, false);
  const xy = await s.until('light.living_bulb', (x) => x.attributes.color_mode === 'xy');
  t.match(xy.attributes, {
    effect: 'okay', color_mode: 'xy', brightness: 128, color_temp_kelvin: null,
    hs_color: xyToHs(0.7006, 0.2993), rgb_color: xyToRgb(0.7006, 0.2993), xy_color: [0.7006, 0.2993],
  }, '127 of 254 rounds half to even: 128');

  // a colour mode the light does not have is refused, the rest of the message taken
  await s.publish('zigbee2mqtt/living_bulb', { state: 'ON', color_mode: 'hs', color: { h: 10, s: 20 }, brightness: 254 }, false);
  await s.until('light.living_bulb', (x) => x.attributes.brightness === 255);
  t.equal((await s.state('light.living_bulb')).attributes.color_mode, 'xy');
  t.ok(s.h.lines.some((l) => l.includes("Invalid color mode 'hs' received for entity light.living_bulb")));

  // service calls publish the device's JSON (the original's json_dumps: compact, floats with their .0)
  const sent = () => s.seen.filter((m) => m.startsWith('zigbee2mqtt/living_bulb/set='));
  const call = async (service: string, data: Record<string, unknown>, expected: string) => {
    const before = sent().length;
    const r = await s.call('POST', `/api/services/light/${service}`, { entity_id: 'light.living_bulb', ...data });
    t.equal(r.status, 200, `${service} ${JSON.stringify(data)}`);
    await eventually(() => sent().length > before, expected);
    t.equal(sent().at(-1), `zigbee2mqtt/living_bulb/set=${expected}`);
  };
  await call('turn_on', { brightness: 128, transition: 2 }, '{"state":"ON","transition":2.0,"brightness":127}');
  await call('turn_on', { rgb_color: [255, 0, 0] }, '{"state":"ON","color":{"x":0.701,"y":0.299}}');
  await call('turn_on', { color_temp_kelvin: 4000 }, '{"state":"ON","color_temp":250}');
  await call('turn_on', { brightness_pct: 50, flash: 'long' }, '{"state":"ON","flash":10,"brightness":127}');
  await call('turn_on', { effect: 'breathe' }, '{"state":"ON","effect":"breathe"}');
  await call('turn_off', { transition: 1.5 }, '{"state":"OFF","transition":1.5}');
  t.equal((await s.state('light.living_bulb')).state, 'on', 'a light with a state topic waits for its device');
  const refused = await s.call('POST', '/api/services/light/turn_on', { entity_id: 'light.living_bulb', effect: 'disco' });
  t.equal(refused.status, 400, 'an effect the light does not list is refused');
  await s.publish('zigbee2mqtt/living_bulb', { state: 'OFF' }, false);
  const off = await s.until('light.living_bulb', (x) => x.state === 'off');
  t.same(off.attributes, {
    ...capabilities,
    effect: null, color_mode: null, brightness: null, color_temp_kelvin: null, hs_color: null, rgb_color: null, xy_color: null,
    friendly_name: 'Living bulb', supported_features: 44,
  }, 'off: the state attributes are None (and the JSON attributes are the last message\'s)');
});

t.test('default schema: a Tasmota-style light on one state topic; an optimistic light with command templates', async (t) => {
  const s = await mqttScene(t, {
    extraYaml: `  light:
    - name: Desk
      command_topic: desk/set
      brightness_command_topic: desk/brightness/set
      brightness_scale: 100
      rgb_command_topic: desk/rgb/set
      rgb_command_template: '{"r": {{ red }}, "g": {{ green }}, "b": {{ blue }}}'
      on_command_type: first
      payload_on: "on"
      payload_off: "off"
`,
  });
  await s.publish('tele/tasmota_bulb/LWT', 'Online');
  await s.publish('homeassistant/light/A1B2C3_LI_1/config', {
    name: 'Tasmota bulb',
    cmd_t: 'cmnd/tasmota_bulb/POWER',
    stat_t: 'tele/tasmota_bulb/STATE',
    stat_val_tpl: '{{ value_json.POWER }}',
    pl_off: 'OFF',
    pl_on: 'ON',
    avty_t: 'tele/tasmota_bulb/LWT',
    pl_avail: 'Online',
    pl_not_avail: 'Offline',
    uniq_id: 'A1B2C3_LI_1',
    dev: { ids: ['A1B2C3'], mf: 'Tasmota' },
    bri_cmd_t: 'cmnd/tasmota_bulb/Dimmer',
    bri_stat_t: 'tele/tasmota_bulb/STATE',
    bri_scl: 100,
    on_cmd_type: 'brightness',
    bri_val_tpl: '{{ value_json.Dimmer }}',
    rgb_cmd_t: 'cmnd/tasmota_bulb/Color2',
    rgb_stat_t: 'tele/tasmota_bulb/STATE',
    rgb_val_tpl: '{{ value_json.Color }}',
    clr_temp_cmd_t: 'cmnd/tasmota_bulb/CT',
    clr_temp_stat_t: 'tele/tasmota_bulb/STATE',
    clr_temp_val_tpl: '{{ value_json.CT }}',
    fx_cmd_t: 'cmnd/tasmota_bulb/Scheme',
    fx_stat_t: 'tele/tasmota_bulb/STATE',
    fx_val_tpl: '{{ value_json.Scheme }}',
    fx_list: ['0', '1', '2', '3', '4'],
  });
  await s.exist('light.tasmota_bulb', 'light.desk');
  const caps = { min_color_temp_kelvin: 2000, max_color_temp_kelvin: 6535, effect_list: ['0', '1', '2', '3', '4'], supported_color_modes: ['color_temp', 'rgb'] };
  t.same((await s.state('light.tasmota_bulb')).attributes, {
    ...caps,
    effect: null, color_mode: null, brightness: null, color_temp_kelvin: null, hs_color: null, rgb_color: null, xy_color: null,
    friendly_name: 'Tasmota bulb', supported_features: 4,
  });

  // each value template reads its part of the one message; the colour temperature comes last, as the original subscribes
  await s.publish('tele/tasmota_bulb/STATE', { POWER: 'ON', Dimmer: 50, Color: '255,128,0', Scheme: 0, CT: 250 }, false);
  const on = await s.until('light.tasmota_bulb', (x) => x.state === 'on' && x.attributes.color_temp_kelvin === 4000);
  t.same(on.attributes, {
    ...caps,
    effect: '0', color_mode: 'color_temp', brightness: 128, color_temp_kelvin: 4000, ...ctColors(4000),
    friendly_name: 'Tasmota bulb', supported_features: 4,
  });
  await s.publish('tele/tasmota_bulb/STATE', { POWER: 'ON', Dimmer: 100, Color: '255,128,0', Scheme: 2 }, false);
  const rgb = await s.until('light.tasmota_bulb', (x) => x.attributes.color_mode === 'rgb');
  t.match(rgb.attributes, { effect: '2', brightness: 255, rgb_color: [255, 128, 0], hs_color: rgbToHs(255, 128, 0), xy_color: rgbToXy(255, 128, 0), color_temp_kelvin: null });

  const sent = () => s.seen.filter((m) => m.startsWith('cmnd/tasmota_bulb/'));
  const call = async (service: string, data: Record<string, unknown>, expected: string[]) => {
    const before = sent().length;
    t.equal((await s.call('POST', `/api/services/light/${service}`, { entity_id: 'light.tasmota_bulb', ...data })).status, 200);
    await eventually(() => sent().length >= before + expected.length, expected.join(' '));
    t.same(sent().slice(before), expected, `${service} ${JSON.stringify(data)}`);
  };
  // on_command_type brightness: the brightness topic turns it on, never the command topic
  await call('turn_on', {}, ['cmnd/tasmota_bulb/Dimmer=100']);
  await call('turn_on', { rgb_color: [0, 0, 255] }, ['cmnd/tasmota_bulb/Color2=0,0,255', 'cmnd/tasmota_bulb/Dimmer=100']);
  await call('turn_on', { brightness: 64, color_temp_kelvin: 2500 }, ['cmnd/tasmota_bulb/Dimmer=25', 'cmnd/tasmota_bulb/CT=400']);
  await call('turn_on', { effect: '3' }, ['cmnd/tasmota_bulb/Dimmer=100', 'cmnd/tasmota_bulb/Scheme=3']);
  await call('turn_off', {}, ['cmnd/tasmota_bulb/POWER=OFF']);
  await s.publish('tele/tasmota_bulb/LWT', 'Offline');
  await s.until('light.tasmota_bulb', (x) => x.state === 'unavailable');

  // optimistic (no state topic): commands set what it shows; on_command_type first; the RGB command template
  t.same((await s.state('light.desk')).attributes, {
    supported_color_modes: ['rgb'], color_mode: null, brightness: null, hs_color: null, rgb_color: null, xy_color: null,
    assumed_state: true, friendly_name: 'Desk', supported_features: 0,
  });
  const desk = () => s.seen.filter((m) => m.startsWith('desk/'));
  t.equal((await s.call('POST', '/api/services/light/turn_on', { entity_id: 'light.desk', rgb_color: [255, 128, 0], brightness: 128, transition: 3 })).status, 200);
  await eventually(() => desk().length === 3, 'three publishes');
  t.same(desk(), ['desk/set=on', 'desk/rgb/set={"r": 255, "g": 128, "b": 0}', 'desk/brightness/set=50']);
  const assumed = await s.until('light.desk', (x) => x.state === 'on');
  t.same(assumed.attributes, {
    supported_color_modes: ['rgb'], color_mode: 'rgb', brightness: 128, hs_color: rgbToHs(255, 128, 0), rgb_color: [255, 128, 0], xy_color: rgbToXy(255, 128, 0),
    assumed_state: true, friendly_name: 'Desk', supported_features: 0,
  });
  // brightness alone on a light with an RGB topic and a brightness topic: the brightness topic
  t.equal((await s.call('POST', '/api/services/light/toggle', { entity_id: 'light.desk' })).status, 200);
  await s.until('light.desk', (x) => x.state === 'off');
  await eventually(() => desk().at(-1) === 'desk/set=off', 'payload_off');
  t.equal((await s.call('POST', '/api/services/light/turn_on', { entity_id: 'light.desk', brightness_step_pct: 10 })).status, 200);
  await s.until('light.desk', (x) => x.state === 'on' && x.attributes.brightness === 26);
  await eventually(() => desk().length === 6, 'the step published');
  t.same(desk().slice(-2), ['desk/set=on', 'desk/brightness/set=10'], 'a step from off starts at 0');
});

t.test('template schema: templates read a state message and render commands', async (t) => {
  const s = await mqttScene(t, {
    extraYaml: `  light:
    - name: Template
      schema: template
      command_topic: tpl/set
      state_topic: tpl/state
      command_on_template: 'on,{{ brightness|d }},{{ color_temp|d }},{{ red|d }}-{{ green|d }}-{{ blue|d }},{{ hue|d }}-{{ sat|d }},{{ transition|d }}'
      command_off_template: 'off,{{ transition|d }}'
      state_template: '{{ value.split(",")[0] }}'
      brightness_template: '{{ value.split(",")[1] }}'
      color_temp_template: '{{ value.split(",")[2] }}'
      red_template: '{{ value.split(",")[3].split("-")[0] }}'
      green_template: '{{ value.split(",")[3].split("-")[1] }}'
      blue_template: '{{ value.split(",")[3].split("-")[2] }}'
      effect_template: '{{ value.split(",")[4] }}'
      effect_list: [rainbow, colorloop]
`,
  });
  await s.exist('light.template');
  const caps = { min_color_temp_kelvin: 2000, max_color_temp_kelvin: 6535, effect_list: ['rainbow', 'colorloop'], supported_color_modes: ['color_temp', 'hs'] };
  await s.publish('tpl/state', 'on,255,145,255-128-64,rainbow', false);
  const on = await s.until('light.template', (x) => x.state === 'on');
  const hs = rgbToHs(255, 128, 64);
  t.same(on.attributes, {
    ...caps,
    effect: 'rainbow', color_mode: 'hs', brightness: 255, color_temp_kelvin: null,
    hs_color: [pyRound(hs[0], 3), pyRound(hs[1], 3)], rgb_color: hsToRgb(...hs), xy_color: hsToXy(...hs),
    friendly_name: 'Template', supported_features: 44,
  }, 'a colour makes the mode hs');
  await s.publish('tpl/state', 'on,100,300,None-None-None,colorloop', false);
  const ct = await s.until('light.template', (x) => x.attributes.color_mode === 'color_temp');
  t.match(ct.attributes, { effect: 'colorloop', brightness: 100, color_temp_kelvin: 3333, ...ctColors(3333) }, 'no colour: color_temp');
  await s.publish('tpl/state', 'on,,,--,disco', false);
  await eventually(() => s.h.lines.some((l) => l.includes("Unsupported effect value 'disco' received from tpl/state")), 'the unknown effect logged');
  await s.publish('tpl/state', 'off,,,--,', false);
  await s.until('light.template', (x) => x.state === 'off');

  const sent = () => s.seen.filter((m) => m.startsWith('tpl/set='));
  const call = async (service: string, data: Record<string, unknown>, expected: string) => {
    const before = sent().length;
    t.equal((await s.call('POST', `/api/services/light/${service}`, { entity_id: 'light.template', ...data })).status, 200);
    await eventually(() => sent().length > before, expected);
    t.equal(sent().at(-1), `tpl/set=${expected}`, `${service} ${JSON.stringify(data)}`);
  };
  // an RGB colour becomes hue and saturation (the light's mode), then red, green and blue again at full brightness
  await call('turn_on', { brightness: 128, rgb_color: [255, 0, 0], transition: 2 }, 'on,128,,255-0-0,0.0-100.0,2.0');
  await call('turn_on', { color_temp_kelvin: 4000 }, 'on,,250,--,-,');
  await call('turn_off', { transition: 1 }, 'off,1.0');
  t.equal((await s.state('light.template')).state, 'off', 'a state topic and template: not optimistic');
});

t.test('default schema: RGBW, RGBWW, white and kelvin topics; an optimistic light comes back after a restart', async (t) => {
  const s = await mqttScene(t, {
    extraYaml: `  light:
    - name: Strip
      unique_id: strip_1
      command_topic: strip/set
      rgbw_command_topic: strip/rgbw/set
      rgbww_command_topic: strip/rgbww/set
      white_command_topic: strip/white/set
      white_scale: 100
      color_temp_command_topic: strip/ct/set
      color_temp_kelvin: true
      min_kelvin: 2700
      max_kelvin: 6500
`,
  });
  await s.exist('light.strip');
  const caps = { min_color_temp_kelvin: 2700, max_color_temp_kelvin: 6500, supported_color_modes: ['color_temp', 'rgbw', 'rgbww', 'white'] };
  const strip = () => s.seen.filter((m) => m.startsWith('strip/'));
  const call = async (data: Record<string, unknown>, expected: string[]) => {
    const before = strip().length;
    t.equal((await s.call('POST', '/api/services/light/turn_on', { entity_id: 'light.strip', ...data })).status, 200, JSON.stringify(data));
    await eventually(() => strip().length >= before + expected.length, expected.join(' '));
    t.same(strip().slice(before), expected, JSON.stringify(data));
  };
  // a brightness beside an RGBW colour also scales the RGBWW channels (the original's elif chain)
  await call({ rgbw_color: [255, 0, 0, 128], brightness: 128 }, ['strip/rgbw/set=128,0,0,64', 'strip/rgbww/set=128,128,128,128,128', 'strip/set=ON']);
  const rgbw = await s.until('light.strip', (x) => x.attributes.color_mode === 'rgbw');
  t.same(rgbw.attributes, {
    ...caps,
    color_mode: 'rgbw', brightness: 128, color_temp_kelvin: null,
    hs_color: rgbToHs(255, 85, 85), rgb_color: [255, 85, 85], rgbw_color: [255, 0, 0, 128], rgbww_color: null, xy_color: rgbToXy(255, 85, 85),
    assumed_state: true, friendly_name: 'Strip', supported_features: 0,
  });
  await call({ white: 200 }, ['strip/white/set=78', 'strip/set=ON']);
  const white = await s.until('light.strip', (x) => x.attributes.color_mode === 'white');
  t.match(white.attributes, { brightness: 200, hs_color: null, rgb_color: null, rgbw_color: null, rgbww_color: null, xy_color: null });
  await call({ color_temp_kelvin: 3000 }, ['strip/ct/set=3000', 'strip/set=ON']);
  await s.until('light.strip', (x) => x.attributes.color_temp_kelvin === 3000);
  // an RGB colour goes to the first colour mode the light has: RGBW, at the light's brightness
  await call({ rgb_color: [0, 255, 0] }, ['strip/rgbw/set=0,200,0,0', 'strip/set=ON']);
  const green = await s.until('light.strip', (x) => x.attributes.color_mode === 'rgbw' && x.attributes.rgbw_color[1] === 255);
  t.same(green.attributes.rgbw_color, [0, 255, 0, 0]);

  // the restart: an optimistic light restores what it assumed
  await s.h.hearth.stop();
  const again = await mqttScene(t, { dataDir: s.h.dataDir, broker: s.broker, token: s.token });
  const back = await again.until('light.strip', (x) => x.state === 'on');
  t.match(back.attributes, { color_mode: 'rgbw', brightness: 200, rgbw_color: [0, 255, 0, 0] }, 'state, brightness, colour mode and colour restored');
});

t.test('json schema: an ESPHome RGB light (its discovery keys abbreviated, color_mode: true as ESPHome still sends it)', async (t) => {
  const s = await mqttScene(t);
  await s.publish('desk/status', 'online');
  await s.publish('homeassistant/light/desk/desk_led/config', {
    schema: 'json',
    color_mode: true,
    sup_clrm: ['rgb'],
    brightness: true,
    effect: true,
    fx_list: ['None', 'Rainbow'],
    name: 'Desk LED',
    stat_t: 'desk/light/desk_led/state',
    cmd_t: 'desk/light/desk_led/command',
    avty_t: 'desk/status',
    uniq_id: 'ESPlightdesk_led',
    dev: { ids: '246f28aabbcc', name: 'desk', sw: 'esphome v2024.6.0', mdl: 'esp32dev', mf: 'espressif' },
  });
  await s.exist('light.desk_desk_led');
  await s.publish('desk/light/desk_led/state', { state: 'ON', color_mode: 'rgb', brightness: 255, color: { r: 255, g: 0, b: 0 }, effect: 'None' }, false);
  const on = await s.until('light.desk_desk_led', (x) => x.state === 'on');
  t.same(on.attributes, {
    effect_list: ['None', 'Rainbow'], supported_color_modes: ['rgb'],
    effect: 'None', color_mode: 'rgb', brightness: 255, hs_color: rgbToHs(255, 0, 0), rgb_color: [255, 0, 0], xy_color: rgbToXy(255, 0, 0),
    friendly_name: 'desk Desk LED', supported_features: 44,
  });
  t.equal((await s.call('POST', '/api/services/light/turn_on', { entity_id: 'light.desk_desk_led', rgb_color: [255, 128, 0], brightness: 128 })).status, 200);
  await eventually(() => s.seen.some((m) => m.startsWith('desk/light/desk_led/command=')), 'the command');
  t.same(s.seen.filter((m) => m.startsWith('desk/light/desk_led/command=')), ['desk/light/desk_led/command={"state":"ON","color":{"r":255,"g":128,"b":0},"brightness":128}'], 'a light with brightness gets its colour unscaled');
  t.equal((await s.call('POST', '/api/services/light/turn_on', { entity_id: 'light.desk_desk_led', hs_color: [30, 100] })).status, 200);
  await eventually(() => s.seen.filter((m) => m.startsWith('desk/light/desk_led/command=')).length === 2, 'the hs command');
  t.equal(s.seen.filter((m) => m.startsWith('desk/light/desk_led/command=')).at(-1), 'desk/light/desk_led/command={"state":"ON","color":{"r":255,"g":127,"b":0}}', 'hue and saturation become RGB for an RGB light');
});
