import type { Context } from '../../../store/types.ts';
import type { ContextSource } from '../../../store/context-token.ts';
import type { Clock } from '../../clock.ts';
import type { EntityActors } from '../../entities/registry.ts';
import type { Logger } from '../../logging/logs.ts';
import type { Registries } from '../../registries/index.ts';
import type { DebugInfo } from '../debug-info.ts';
import type { RawMessage } from '../subscriptions.ts';
import type { MqttTemplates } from './templates.ts';
import type { MessageBatch } from './batch.ts';

/** The broker as entities use it. */
export interface Broker {
  readonly connected: boolean;
  subscribe(filter: string, qos: 0 | 1 | 2, deliver: (message: RawMessage) => void): () => void;
  publish(topic: string, payload: string | Buffer, options: { qos: 0 | 1 | 2; retain: boolean }): Promise<void>;
}

/** What MQTT entities need from the instance. */
export interface MqttEntityHost {
  entities: EntityActors;
  registries: Registries;
  templates: MqttTemplates;
  broker: Broker;
  clock: Clock;
  log: Logger;
  debug: DebugInfo;
  /** the writes of the message being delivered, made once it reached every listener */
  batch: MessageBatch;
  /** the MQTT config entry devices belong to */
  configEntryId: string | undefined;
  /** a fresh context; `source` notes the MQTT topic a change came from */
  newContext(source?: ContextSource): Context;
}
