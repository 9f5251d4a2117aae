// MQTT.js clients in tests of the brokers (the embedded one, the Mosquitto app): how a connection
// attempt ends, and the next message on a topic.
import mqtt, { type MqttClient } from 'mqtt';

/** How a connection attempt ends: 'connected', or the broker's CONNACK refusal code (or the socket's error code). */
export async function connectionOutcome(url: string, o: mqtt.IClientOptions = {}): Promise<string | number> {
  try {
    const c = await mqtt.connectAsync(url, { reconnectPeriod: 0, connectTimeout: 5000, ...o });
    await c.endAsync(true);
    return 'connected';
  } catch (err: any) {
    return err.code ?? err.message;
  }
}

/** A message as a subscriber sees it. */
export interface Received {
  payload: string;
  retain: boolean;
  qos: number;
}

/**
 * Subscribes the client to `topic` and, once the broker acknowledged it, answers `next`: the next
 * message on it (a retained one comes first).
 */
export async function subscribeForNext(c: MqttClient, topic: string, qos: 0 | 1 = 0): Promise<{ next: Promise<Received> }> {
  const next = new Promise<Received>((resolve) => c.on('message', (tp, payload, packet) => tp === topic && resolve({ payload: payload.toString(), retain: packet.retain, qos: packet.qos })));
  await c.subscribeAsync(topic, { qos });
  return { next };
}
