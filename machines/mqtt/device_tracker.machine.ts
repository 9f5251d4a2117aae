import { assign, setup } from 'xstate';

/** Where an MQTT device tracker is: a location name (its state topic), or a position (its JSON attributes). */
export interface MqttDeviceTrackerContext {
  /** home, not_home or a zone's name; null: none (the position decides) */
  locationName: string | null;
  latitude: number | null;
  longitude: number | null;
  /** gps_accuracy in metres */
  accuracy: number;
}

export type MqttDeviceTrackerEvent =
  /** a state message: a location name, or null (payload_reset) */
  | { type: 'message'; locationName: string | null }
  /** JSON attributes with a position: it replaces any location name (zones decide again) */
  | { type: 'position'; latitude: number | null; longitude: number | null; accuracy: number };

/**
 * An MQTT device tracker: its state topic names where it is; a position in its JSON attributes
 * clears that name and puts it where the zones say.
 */
export const mqttDeviceTrackerMachine = setup({
  types: {
    context: {} as MqttDeviceTrackerContext,
    events: {} as MqttDeviceTrackerEvent,
    input: {} as MqttDeviceTrackerContext,
  },
  actions: {
    name: assign(({ event }) => (event.type === 'message' ? { locationName: event.locationName } : {})),
    position: assign(({ event }) => (event.type === 'position' ? { locationName: null, latitude: event.latitude, longitude: event.longitude, accuracy: event.accuracy } : {})),
  },
}).createMachine({
  id: 'mqtt_device_tracker',
  context: ({ input }) => ({ ...input }),
  initial: 'tracking',
  states: {
    tracking: {
      on: { message: { actions: 'name' }, position: { actions: 'position' } },
    },
  },
});
