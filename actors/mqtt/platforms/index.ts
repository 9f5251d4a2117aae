import { mqttBinarySensor } from './binary_sensor.ts';
import { mqttButton } from './button.ts';
import { mqttDeviceTracker } from './device_tracker.ts';
import { mqttEvent } from './event.ts';
import { mqttNumber } from './number.ts';
import { mqttScene } from './scene.ts';
import { mqttSelect } from './select.ts';
import { mqttSensor } from './sensor.ts';
import { mqttSiren } from './siren.ts';
import { mqttSwitch } from './switch.ts';
import { mqttText } from './text.ts';
import type { MqttPlatform } from './types.ts';
import { mqttUpdate } from './update.ts';

/**
 * The MQTT platforms Hearth has, by domain. Adding one: its machine in machines/mqtt/, its module
 * here (options, subscriptions, render, services), and one line below.
 */
export const MQTT_PLATFORMS: ReadonlyMap<string, MqttPlatform> = new Map(
  [mqttSensor, mqttBinarySensor, mqttSwitch, mqttButton, mqttNumber, mqttSelect, mqttText, mqttScene, mqttSiren, mqttEvent, mqttDeviceTracker, mqttUpdate].map((p) => [p.domain, p as MqttPlatform]),
);
