import { connectAsync } from 'mqtt';
import type { Context } from '../../store/types.ts';
import type { FlowHandler } from '../supervisor-client/discovery-flows.ts';
import { configEntryJson, type MqttConfigEntries, type MqttConfigEntry, type MqttEntryData } from './entry.ts';

/** The original's try_connection: one connection with the broker's settings, within 5 s. */
export async function canConnect(data: MqttEntryData): Promise<boolean> {
  try {
    const client = await connectAsync({
      host: data.broker,
      port: data.port,
      username: data.username,
      password: data.password,
      protocolVersion: data.protocol === '5' ? 5 : data.protocol === '3.1' ? 3 : 4,
      reconnectPeriod: 0,
      connectTimeout: 5000,
    });
    await client.endAsync();
    return true;
  } catch {
    return false;
  }
}

const text = (v: unknown) => (typeof v === 'string' ? v : undefined);

/**
 * MQTT's step of the supervisor's discovery flow (the original's hassio_confirm): the service's
 * host, port, username, password and protocol become the config entry once a connection with
 * them works (else the form again, `cannot_connect`). A core with an entry shows no such flow
 * (the original's single instance).
 */
export function mqttHassioFlow(deps: {
  entries: MqttConfigEntries;
  /** the entry was made: connect with it */
  created(entry: MqttConfigEntry, context: Context): Promise<void>;
  tryConnection?: (data: MqttEntryData) => Promise<boolean>;
}): FlowHandler {
  return {
    wanted: () => deps.entries.entry() === undefined,
    async confirm(discovery, _input, context) {
      if (deps.entries.entry()) return { type: 'abort', reason: 'single_instance_allowed' };
      const c = discovery.config;
      const data: MqttEntryData = { broker: String(c.host ?? ''), port: Number(c.port ?? 1883), discovery: true };
      if (text(c.username) !== undefined) data.username = text(c.username);
      if (text(c.password) !== undefined) data.password = text(c.password);
      if (c.protocol !== undefined) data.protocol = String(c.protocol);
      if (!(await (deps.tryConnection ?? canConnect)(data))) return { type: 'form', errors: { base: 'cannot_connect' } };
      const entry = await deps.entries.create(discovery.name, 'hassio', data, context);
      await deps.created(entry, context);
      return { type: 'create_entry', title: entry.title, result: configEntryJson(entry, 'loaded') };
    },
  };
}
