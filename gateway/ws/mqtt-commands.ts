import { Type } from '@sinclair/typebox';
import { isoformat } from '../../machines/python/isoformat.ts';
import type { Command } from './command.ts';
import { CommandError } from './connection.ts';
import { validSubscribeTopic } from '../../actors/mqtt/topics.ts';

const cmd = (props: Record<string, ReturnType<typeof Type.String>> | Record<string, any> = {}) =>
  Type.Object({ id: Type.Integer({ minimum: 1 }), type: Type.String(), ...props }, { additionalProperties: false });

/**
 * The MQTT integration's WebSocket commands (admin): `mqtt/subscribe` streams a topic's messages
 * as the frontend's MQTT page shows them (`{topic, payload, qos, retain, time}`), and
 * `mqtt/device/debug_info` tells what a device's entities subscribed to, received and sent.
 */
export const mqttCommands: Record<string, Command> = {
  'mqtt/subscribe': {
    schema: cmd({ topic: Type.String(), qos: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 })) }),
    admin: true,
    handle(conn, msg, deps) {
      let topic: string;
      try {
        topic = validSubscribeTopic(msg.topic);
      } catch (err) {
        throw new CommandError('invalid_format', `${(err as Error).message} for dictionary value @ data['topic']`);
      }
      const stop = deps.mqtt?.subscribe(topic, (msg.qos ?? 0) as 0 | 1 | 2, (m) => {
        const payload = new TextDecoder('utf-8').decode(m.payload);
        conn.event(msg.id, JSON.stringify({ topic: m.topic, payload, qos: m.qos, retain: m.retain, time: isoformat(deps.clock.now()) }));
      });
      if (!stop) throw new CommandError('home_assistant_error', 'MQTT is not set up');
      conn.subscribe(msg.id, stop);
      conn.result(msg.id, 'null');
    },
  },

  'mqtt/device/debug_info': {
    schema: cmd({ device_id: Type.String() }),
    admin: true,
    handle(conn, msg, deps) {
      conn.result(msg.id, JSON.stringify(deps.mqtt?.deviceDebugInfo(msg.device_id, isoformat) ?? { entities: [], triggers: [] }));
    },
  },
};
