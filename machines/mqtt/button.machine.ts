import { mqttLastTriggeredMachine } from './last-triggered.machine.ts';

/** An MQTT button: a press publishes payload_press; its state is the time of the last press. */
export const mqttButtonMachine = mqttLastTriggeredMachine('mqtt_button', { type: 'publish', topic: 'command_topic', payload: 'payload_press', template: 'command_template' });
