import { readFileSync } from 'node:fs';
import { connect, type IClientOptions, type MqttClient as BrokerClient } from 'mqtt';
import { createActor, fromCallback, type Actor } from 'xstate';
import { mqttConnectionMachine, type MqttConnectionEvent } from '../../machines/mqtt/connection.machine.ts';
import type { Logger } from '../logging/logs.ts';
import type { MqttSettings } from './config.ts';
import { SubscriptionTable, type Listener, type RawMessage } from './subscriptions.ts';

/** A publish refused because there is no connection (the original's wording). */
export class MqttNotConnected extends Error {
  constructor() {
    super('Error talking to MQTT: The client is not currently connected.');
  }
}

export interface MqttClientDeps {
  settings: MqttSettings;
  log: Logger;
  /** the connection came up (first time, or after an outage): subscriptions and birth message are sent */
  onConnected(): void;
  /** the connection is gone (once per outage) */
  onDisconnected(): void;
  /** a message has reached every listener */
  afterMessage?(): void;
}

const PROTOCOL_VERSIONS = { '3.1': 3, '3.1.1': 4, '5': 5 } as const;

/** MQTT.js options for the settings; reconnecting is the connection machine's, never MQTT.js's. */
function clientOptions(s: MqttSettings): IClientOptions {
  const options: IClientOptions = {
    host: s.broker,
    port: s.port,
    protocol: s.certificate || s.client_cert ? 'mqtts' : 'mqtt',
    protocolVersion: PROTOCOL_VERSIONS[s.protocol],
    keepalive: s.keepalive,
    reconnectPeriod: 0,
    connectTimeout: 10_000,
    clean: true,
    resubscribe: false,
  };
  if (s.protocol === '3.1') options.protocolId = 'MQIsdp';
  if (s.client_id !== undefined) options.clientId = s.client_id;
  if (s.username !== undefined) options.username = s.username;
  if (s.password !== undefined) options.password = s.password;
  if (s.certificate && s.certificate !== 'auto') options.ca = readFileSync(s.certificate);
  if (s.client_cert) options.cert = readFileSync(s.client_cert);
  if (s.client_key) options.key = readFileSync(s.client_key);
  if (s.tls_insecure) options.rejectUnauthorized = false;
  if (s.will_message) options.will = { topic: s.will_message.topic, payload: Buffer.from(s.will_message.payload), qos: s.will_message.qos, retain: s.will_message.retain };
  return options;
}

/**
 * The connection to one broker: the connection machine (machines/mqtt/connection.machine.ts)
 * with an MQTT.js session as its `session` actor, the subscriptions every session makes again,
 * and publishing. One log line when an outage begins, one when it ends.
 */
export class MqttClient {
  private readonly table = new SubscriptionTable();
  private readonly actor: Actor<typeof mqttConnectionMachine>;
  private session: BrokerClient | undefined;
  private isConnected = false;
  private everConnected = false;

  constructor(private readonly deps: MqttClientDeps) {
    const { settings, log } = deps;
    const broker = `${settings.broker}:${settings.port}`;
    const machine = mqttConnectionMachine.provide({
      actors: {
        session: fromCallback<MqttConnectionEvent, { broker: string }>(({ sendBack }) => this.openSession(sendBack)),
      },
      actions: {
        connectionMade: () => void this.connectionMade(),
        outageBegan: (_, { first, reason }) => {
          this.isConnected = false;
          if (!first) return;
          if (this.everConnected) log.warning(`Disconnected from MQTT server ${broker} (${reason})`);
          else log.error(`Failed to connect to MQTT server ${broker} (${reason}); retrying`);
          deps.onDisconnected();
        },
        outageEnded: () => log.info(`Connected to MQTT server ${broker}`),
      },
    });
    this.actor = createActor(machine, { input: { broker } });
  }

  /** Starts connecting (and reconnecting, with backoff, whenever the connection is lost). */
  start(): void {
    this.actor.start();
  }

  get connected(): boolean {
    return this.isConnected;
  }

  /** One MQTT.js session: `connected` once the broker accepts, `lost` (once) when it ends. */
  private openSession(sendBack: (e: MqttConnectionEvent) => void): () => void {
    let reason = 'connection closed';
    let ended = false;
    const client = connect(clientOptions(this.deps.settings));
    this.session = client;
    client.on('connect', () => sendBack({ type: 'connected' }));
    client.on('error', (err) => (reason = err.message));
    client.on('message', (topic, payload, packet) => {
      try {
        this.table.dispatch({ topic, payload, qos: packet.qos, retain: packet.retain });
      } finally {
        this.deps.afterMessage?.();
      }
    });
    client.on('close', () => {
      if (ended) return;
      ended = true;
      if (this.session === client) this.session = undefined;
      sendBack({ type: 'lost', reason });
    });
    return () => {
      ended = true;
      if (this.session === client) this.session = undefined;
      client.end(true);
    };
  }

  /** After the broker accepted: every subscription again, then the birth message (devices answer it with their discovery). */
  private async connectionMade(): Promise<void> {
    const client = this.session;
    if (!client) return;
    this.everConnected = true;
    this.isConnected = true;
    this.table.forgetRetained();
    const filters = this.table.all();
    try {
      if (Object.keys(filters).length) await client.subscribeAsync(filters);
      const birth = this.deps.settings.birth_message;
      if (birth) await client.publishAsync(birth.topic, birth.payload, { qos: birth.qos, retain: birth.retain });
    } catch (err) {
      this.deps.log.warning(`MQTT subscriptions after connecting failed: ${(err as Error).message}`);
    }
    this.deps.onConnected();
  }

  /**
   * Listens to a topic filter; returns the way to stop. The broker is asked at once (even for a
   * filter already subscribed: it then replays the retained messages for the new listener).
   */
  subscribe(filter: string, qos: 0 | 1 | 2, deliver: (message: RawMessage) => void): () => void {
    const listener: Listener = { qos, deliver, retained: new Set() };
    this.table.add(filter, listener);
    const session = this.session;
    if (session && this.isConnected) {
      session.subscribe(filter, { qos: this.table.qosOf(filter) }, (err) => err && this.deps.log.warning(`MQTT subscription to ${filter} failed: ${err.message}`));
    }
    return () => {
      if (this.table.remove(filter, listener) && this.session && this.isConnected) this.session.unsubscribe(filter);
    };
  }

  /** Publishes; resolves once the broker has it (QoS 1 and 2) or it is sent (QoS 0). */
  async publish(topic: string, payload: string | Buffer, options: { qos: 0 | 1 | 2; retain: boolean }): Promise<void> {
    const session = this.session;
    if (!session || !this.isConnected) throw new MqttNotConnected();
    await session.publishAsync(topic, payload, options);
  }

  /** Ends the connection: the will message is published first, as a clean disconnect does not trigger it. */
  async stop(): Promise<void> {
    const will = this.deps.settings.will_message;
    const session = this.session;
    if (will && session && this.isConnected) {
      await Promise.race([session.publishAsync(will.topic, will.payload, { qos: will.qos, retain: will.retain }).catch(() => undefined), new Promise((r) => setTimeout(r, 1000))]);
    }
    this.isConnected = false;
    this.actor.send({ type: 'stop' });
    this.actor.stop();
  }
}
