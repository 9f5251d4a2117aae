// A home for the intent tests: virtual devices, floors, areas, names and aliases made through the
// public API, and POST /api/intent/handle.
import { startTestHearth, onboard, api } from '../../helpers/hearth.ts';
import { authedClient } from '../../helpers/ws.ts';
import { sorting } from '../../helpers/ws-sorting.ts';

export const CONFIG = `
core:
  time_zone: Europe/Amsterdam
light:
  - { platform: virtual, name: Kitchen Light, unique_id: kitchen_light }
  - { platform: virtual, name: Bedroom Light, unique_id: bedroom_light }
  - { platform: virtual, name: Reading Lamp, unique_id: reading_lamp_1 }
  - { platform: virtual, name: Reading Lamp, unique_id: reading_lamp_2 }
  - { platform: virtual, name: Hall Light, supported_color_modes: [hs] }
switch:
  - { platform: virtual, name: Kettle, device_class: outlet, unique_id: kettle }
cover:
  - { platform: virtual, name: Garage door, device_class: garage, unique_id: garage }
  - { platform: virtual, name: Blind, device_class: blind, supported_features: [open, close], unique_id: blind }
valve:
  - { platform: virtual, name: Irrigation, reports_position: true, unique_id: irrigation }
lock:
  - { platform: virtual, name: Front door, initial: unlocked, unique_id: front_door }
  - { platform: virtual, name: Back door, initial: unlocked, operation_seconds: 2, unique_id: back_door }
button:
  - { platform: virtual, name: Doorbell, unique_id: doorbell }
scene:
  - { platform: virtual, name: Movie night, unique_id: movie }
sensor:
  - { platform: virtual, name: Outside, device_class: temperature, unit_of_measurement: °C, initial: 21.5, unique_id: outside }
  - { platform: virtual, name: Kitchen temperature, device_class: temperature, unit_of_measurement: °C, initial: 19, unique_id: kitchen_temp }
climate:
  - { platform: virtual, name: Thermostat, hvac_modes: ['off', heat], current_temperature: 19.5, unique_id: thermostat }
  - { platform: virtual, name: Bedroom heater, hvac_modes: ['off', heat], current_temperature: 17, unique_id: bedroom_heater }
media_player:
  - { platform: virtual, name: TV, device_class: tv, initial: playing, unique_id: tv }
  - { platform: virtual, name: Speaker, device_class: speaker, initial: playing, unique_id: speaker }
`;

/**
 * Floors: ground (alias downstairs), upstairs. Areas: kitchen (ground, alias cookhouse,
 * temperature sensor), living room (ground), bedroom (upstairs), empty attic (upstairs). The two
 * Reading Lamps sit in the living room and the bedroom; the lights, kettle, thermostat and heater
 * in their rooms, the TV and the speaker (both playing) in the living room; Kitchen Light has the
 * alias "worktop light".
 */
export async function startHome(t: { teardown(fn: () => unknown): void }) {
  const h = await startTestHearth(t, { config: CONFIG });
  const tokens = await onboard(h.base);
  const rest = api(h.base, tokens.access_token);
  const c = await authedClient(h.base, tokens.access_token);
  const { ask } = sorting(c);
  const must = async (msg: Record<string, unknown>) => {
    const answer = await ask(msg);
    if (!answer.success) throw new Error(`${msg.type}: ${JSON.stringify(answer.error)}`);
    return answer.result;
  };
  await must({ type: 'config/floor_registry/create', name: 'Ground', aliases: ['downstairs'], level: 0 });
  await must({ type: 'config/floor_registry/create', name: 'Upstairs', level: 1 });
  await must({ type: 'config/area_registry/create', name: 'Kitchen', floor_id: 'ground', aliases: ['cookhouse'], temperature_entity_id: 'sensor.kitchen_temperature' });
  await must({ type: 'config/area_registry/create', name: 'Living room', floor_id: 'ground' });
  await must({ type: 'config/area_registry/create', name: 'Bedroom', floor_id: 'upstairs' });
  await must({ type: 'config/area_registry/create', name: 'Attic', floor_id: 'upstairs' });
  const place = (entity_id: string, area_id: string, extra: Record<string, unknown> = {}) => must({ type: 'config/entity_registry/update', entity_id, area_id, ...extra });
  await place('light.kitchen_light', 'kitchen', { aliases: ['worktop light'] });
  await place('sensor.kitchen_temperature', 'kitchen');
  await place('switch.kettle', 'kitchen');
  await place('light.bedroom_light', 'bedroom');
  await place('light.reading_lamp', 'living_room');
  await place('light.reading_lamp_2', 'bedroom');
  await place('climate.thermostat', 'living_room');
  await place('climate.bedroom_heater', 'bedroom');
  await place('cover.garage_door', 'living_room');
  await place('media_player.tv', 'living_room');
  await place('media_player.speaker', 'living_room');
  const handle = async (name: string, data?: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const res = await rest('POST', '/api/intent/handle', { name, ...(data ? { data } : {}), ...extra });
    if (res.status !== 200) throw new Error(`intent/handle ${name}: ${res.status} ${res.text}`);
    return res.json;
  };
  const state = async (entityId: string) => (await rest('GET', `/api/states/${entityId}`)).json;
  /** Polls a state until it is `want` (a service left running in the background settles later). */
  const stateBecomes = async (entityId: string, want: string) => {
    for (let i = 0; i < 200; i++) {
      const s = await state(entityId);
      if (s?.state === want) return s;
      await new Promise((r) => setTimeout(r, 25));
    }
    return state(entityId);
  };
  return { ...h, tokens, rest, ask: must, handle, state, stateBecomes };
}

/** An error-type answer of POST /api/intent/handle. */
export const errorAnswer = (code: string, speech: string) => ({
  speech: { plain: { speech, extra_data: null } },
  card: {},
  language: 'en',
  response_type: 'error',
  data: { code },
});
