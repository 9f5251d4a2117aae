import { mqttLastTriggeredMachine } from './last-triggered.machine.ts';

/** An MQTT scene: activating it (scene.turn_on) publishes payload_on; its state is the time of the last activation. */
export const mqttSceneMachine = mqttLastTriggeredMachine('mqtt_scene', { type: 'publish', topic: 'command_topic', payload: 'payload_on' });
