// A small home for the conversation tests: lights, fans, covers, a lock, a thermostat and
// sensors in a kitchen and a living room downstairs and a bedroom upstairs.
import { authedClient } from '../../helpers/ws.ts';
import { sorting } from '../../helpers/ws-sorting.ts';
import type { Hearth } from '../../../bin/instance.ts';

export const HOME_CONFIG = `
light:
  - { platform: virtual, name: Kitchen light, unique_id: kitchen_light }
  - { platform: virtual, name: Ceiling, unique_id: kitchen_ceiling }
  - { platform: virtual, name: Reading lamp, unique_id: reading_lamp }
  - { platform: virtual, name: Bedside, unique_id: bedside }
fan:
  - { platform: virtual, name: Ceiling fan, unique_id: ceiling_fan }
switch:
  - { platform: virtual, name: Kettle, unique_id: kettle, device_class: outlet, initial: false }
cover:
  - { platform: virtual, name: Living room blinds, unique_id: lr_blinds, device_class: blind, travel_seconds: 0 }
  - { platform: virtual, name: Garage door, unique_id: garage, device_class: garage, travel_seconds: 0 }
lock:
  - { platform: virtual, name: Front door, unique_id: front_door, operation_seconds: 0 }
climate:
  - { platform: virtual, name: Thermostat, unique_id: thermostat, hvac_modes: ['off', heat], current_temperature: 19.5 }
sensor:
  - { platform: virtual, name: Kitchen temperature, unique_id: kitchen_temp, device_class: temperature, unit_of_measurement: °C, state_class: measurement, initial: 21.5 }
`;

/** Floors, areas and where each entity is; the kitchen light answers to "stove light" too. */
export async function furnish(base: string, token: string, hearth: Hearth): Promise<void> {
  const c = await authedClient(base, token);
  const { ask } = sorting(c);
  const must = async (msg: Record<string, unknown>) => {
    const a = await ask(msg);
    if (!a.success) throw new Error(`${JSON.stringify(msg)}: ${JSON.stringify(a.error)}`);
    return a.result;
  };
  await must({ type: 'config/floor_registry/create', name: 'Ground floor', aliases: ['downstairs'] });
  await must({ type: 'config/floor_registry/create', name: 'Upstairs' });
  await must({ type: 'config/area_registry/create', name: 'Kitchen', floor_id: 'ground_floor' });
  await must({ type: 'config/area_registry/create', name: 'Living room', floor_id: 'ground_floor', aliases: ['lounge'] });
  await must({ type: 'config/area_registry/create', name: 'Bedroom', floor_id: 'upstairs' });
  const place = (entity_id: string, changes: Record<string, unknown>) => must({ type: 'config/entity_registry/update', entity_id, ...changes });
  await place('light.kitchen_light', { area_id: 'kitchen', aliases: ['stove light'] });
  await place('light.ceiling', { area_id: 'kitchen' });
  await place('light.reading_lamp', { area_id: 'living_room' });
  await place('light.bedside', { area_id: 'bedroom' });
  await place('fan.ceiling_fan', { area_id: 'bedroom' });
  await place('switch.kettle', { area_id: 'kitchen' });
  await place('cover.living_room_blinds', { area_id: 'living_room' });
  await place('climate.thermostat', { area_id: 'living_room' });
  await place('sensor.kitchen_temperature', { area_id: 'kitchen' });
  await must({ type: 'config/area_registry/update', area_id: 'kitchen', temperature_entity_id: 'sensor.kitchen_temperature' });
  c.ws.close();
  void hearth;
}
