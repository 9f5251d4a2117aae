import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import type { Context } from '../../store/types.ts';
import { InvalidValue } from './schema.ts';
import { ServiceError, type ServiceSpec } from '../services/types.ts';
import type { Templates } from '../templates/index.ts';
import type { Broker } from './entity/host.ts';
import { validPublishTopic, validSubscribeTopic } from './topics.ts';

/** A Python bytes literal (`b'\x01\x02'`) as the bytes it names, for evaluate_payload; other text as it is. */
export function evaluatedPayload(text: string): string | Buffer {
  const m = /^b(['"])([\s\S]*)\1$/.exec(text);
  if (!m) return text;
  const bytes: number[] = [];
  const body = m[2];
  const escapes: Record<string, number> = { n: 10, r: 13, t: 9, '\\': 92, "'": 39, '"': 34, '0': 0, a: 7, b: 8, f: 12, v: 11 };
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch !== '\\') bytes.push(ch.charCodeAt(0) & 0xff);
    else if (body[i + 1] === 'x') {
      bytes.push(parseInt(body.slice(i + 2, i + 4), 16));
      i += 3;
    } else {
      bytes.push(escapes[body[i + 1]] ?? 92);
      i += 1;
    }
  }
  return Buffer.from(bytes);
}

/** A topic checked as the original's schema checks it, refused as invalid data. */
function topicOf(check: (v: unknown) => string, value: unknown): string {
  try {
    return check(value);
  } catch (err) {
    if (err instanceof InvalidValue) throw new ServiceError('invalid_format', `${err.message} for dictionary value @ data['topic']`);
    throw err;
  }
}

const QOS = Type.Union([Type.Literal(0), Type.Literal(1), Type.Literal(2)]);

/**
 * `mqtt.publish`, `mqtt.dump` and `mqtt.reload`, admin services as the original registers them.
 */
export function mqttServices(deps: {
  broker: Broker;
  templates: Templates;
  configDir: string;
  /** reads configuration.yaml again and sets the YAML entities up anew */
  reload(context: Context): Promise<void>;
  fireEvent(eventType: string, data: Record<string, unknown>, context: Context): Promise<unknown>;
  log(line: string): void;
}): ServiceSpec[] {
  return [
    {
      domain: 'mqtt',
      service: 'publish',
      description: {
        name: 'Publish',
        description: 'Publishes a message to an MQTT topic.',
        fields: {
          topic: { name: 'Topic', description: 'Topic to publish to.', required: true, example: '/homeassistant/hello', selector: { text: {} } },
          payload: { name: 'Payload', description: 'The payload to publish. Publishes an empty message if not provided.', example: 'The temperature is {{ states("sensor.temperature") }}', selector: { template: {} } },
          evaluate_payload: { name: 'Evaluate payload', description: 'If a bytes literal is provided for `payload`, publish its bytes.', default: false, selector: { boolean: {} } },
          qos: { name: 'QoS', description: 'Quality of Service to use. 0: At most once. 1: At least once. 2: Exactly once.', default: 0, selector: { select: { options: ['0', '1', '2'] } } },
          retain: { name: 'Retain', description: 'If the message should have the retain flag set. If set, the broker stores the most recent message on a topic.', default: false, selector: { boolean: {} } },
        },
      },
      schema: Type.Object(
        {
          topic: Type.String(),
          payload: Type.Optional(Type.Union([Type.String(), Type.Null()])),
          payload_template: Type.Optional(Type.String()),
          evaluate_payload: Type.Optional(Type.Boolean()),
          qos: Type.Optional(QOS),
          retain: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
      supportsResponse: 'none',
      access: 'admin',
      handler: async (call) => {
        const topic = topicOf(validPublishTopic, call.data.topic);
        if (call.data.payload !== undefined && call.data.payload_template !== undefined) {
          throw new ServiceError('invalid_format', "two or more values in the same group of exclusion 'payload' @ data[<payload>]");
        }
        let payload: string | Buffer = call.data.payload ?? '';
        // a template renders with the home's states (payload_template; a payload that is a template too)
        const source = call.data.payload_template ?? (typeof call.data.payload === 'string' ? call.data.payload : undefined);
        if (source !== undefined) {
          const out = deps.templates.render(source, undefined);
          if (!out.ok) throw new ServiceError('service_validation_error', `Unable to publish to ${topic}: rendering payload template '${source}' failed: ${out.error.toString()}`);
          payload = out.text;
        }
        if (call.data.evaluate_payload && typeof payload === 'string') payload = evaluatedPayload(payload);
        try {
          await deps.broker.publish(topic, payload, { qos: call.data.qos ?? 0, retain: call.data.retain ?? false });
        } catch (err) {
          throw new ServiceError('home_assistant_error', (err as Error).message);
        }
      },
    },
    {
      domain: 'mqtt',
      service: 'dump',
      description: {
        name: 'Export',
        description: 'Writes all messages on a specific topic into the `mqtt_dump.txt` file in your configuration folder.',
        fields: {
          topic: { name: 'Topic', description: 'Topic to listen to.', example: 'OpenZWave/#', selector: { text: {} } },
          duration: { name: 'Duration', description: 'How long we should listen for messages in seconds.', default: 5, selector: { number: { min: 1, max: 300, unit_of_measurement: 'seconds' } } },
        },
      },
      schema: Type.Object({ topic: Type.String(), duration: Type.Optional(Type.Integer()) }, { additionalProperties: false }),
      supportsResponse: 'none',
      access: 'admin',
      handler: async (call) => {
        const topic = topicOf(validSubscribeTopic, call.data.topic);
        const lines: string[] = [];
        const stop = deps.broker.subscribe(topic, 0, (m) => lines.push(`${m.topic},${m.payload.toString('utf8').replaceAll('\n', '')}\n`));
        // the call answers at once; the file is written once the duration is over, as in the original
        const timer = setTimeout(() => {
          stop();
          writeFile(join(deps.configDir, 'mqtt_dump.txt'), lines.join(''), 'utf8').catch((err) => deps.log(`mqtt_dump.txt not written: ${(err as Error).message}`));
        }, (call.data.duration ?? 5) * 1000);
        timer.unref();
      },
    },
    {
      domain: 'mqtt',
      service: 'reload',
      description: { name: 'Reload', description: 'Reloads MQTT entities from the YAML-configuration.', fields: {} },
      schema: Type.Object({}, { additionalProperties: false }),
      supportsResponse: 'none',
      access: 'admin',
      handler: async (call) => {
        await deps.reload(call.context);
        await deps.fireEvent('event_mqtt_reloaded', {}, call.context);
      },
    },
  ];
}
