// The stream a replica follows, filled directly: records in the exporter's exact format (the
// record as JSON, subject from subjectOf, msgID = seq), published with a window of async
// publishes, so a 1M-record stream takes seconds rather than a primary's full write path.
import { connect, headers, type NatsConnection } from 'nats';
import { subjectOf } from '../actors/export/subjects.ts';
import type { EventRecord } from '../store/types.ts';
import { contextId } from './common.ts';

export const ENTITIES = 20_000;
const WINDOW = 2000;

export interface EntityState {
  entity_id: string;
  state: string;
  attributes: Record<string, unknown>;
  last_changed: number;
  last_reported: number;
  last_updated: number;
  context: { id: string; parent_id: null; user_id: null };
}

/**
 * Record `seq` (1-based) of a busy home: temperature sensors reporting in turn, each
 * state_changed carrying the whole old and new state, as the primary's log.read() gives it to
 * the exporter. `last` holds each entity's state so far (updated).
 */
export function stateRecord(seq: number, last: EntityState[], t0: number): EventRecord {
  const i = (seq - 1) % ENTITIES;
  const entityId = `sensor.replica_${i}`;
  const time = t0 + seq * 10 + 0.123;
  const context = { id: contextId(seq), parent_id: null, user_id: null };
  const newState: EntityState = {
    entity_id: entityId,
    state: (15 + ((seq * 7) % 150) / 10).toFixed(1),
    attributes: { state_class: 'measurement', unit_of_measurement: '°C', device_class: 'temperature', friendly_name: `Room ${i} temperature` },
    last_changed: time,
    last_reported: time,
    last_updated: time,
    context,
  };
  const old = last[i] ?? null;
  last[i] = newState;
  return { seq, time, stream: `entity/${entityId}`, type: 'state_changed', data: { entity_id: entityId, old_state: old, new_state: newState }, context, origin: 'LOCAL' };
}

export interface Filled {
  /** the last record's seq (= the stream's last message: one message per record) */
  lastSeq: number;
  /** every entity's state at lastSeq */
  states: EntityState[];
  bytes: number;
  ms: number;
}

/** Makes stream `stream` (subjects `<prefix>.>`) and publishes records 1..count into it. */
export async function fillStream(servers: string, stream: string, count: number, prefix = stream): Promise<Filled> {
  const nc: NatsConnection = await connect({ servers, reconnect: false });
  try {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: stream, subjects: [`${prefix}.>`] });
    const last: EntityState[] = new Array(ENTITIES);
    const t0 = Date.now() - 86_400_000;
    const started = performance.now();
    let bytes = 0;
    // core publishes into the stream's subjects (the stream stores them as it would a JetStream
    // publish, Nats-Msg-Id and all); a flush every WINDOW keeps the server's ingest ahead
    for (let seq = 1; seq <= count; seq++) {
      const r = stateRecord(seq, last, t0);
      const payload = JSON.stringify(r);
      bytes += payload.length;
      const h = headers();
      h.set('Nats-Msg-Id', String(seq));
      nc.publish(subjectOf(prefix, r.stream, r.type), payload, { headers: h });
      if (seq % WINDOW === 0) await nc.flush();
    }
    await nc.flush();
    for (;;) {
      const info = await jsm.streams.info(stream);
      if (info.state.messages >= count) break;
      if (performance.now() - started > 600_000) throw new Error(`stream ${stream} holds ${info.state.messages} of ${count} messages`);
      await new Promise((ok) => setTimeout(ok, 50));
    }
    return { lastSeq: count, states: last, bytes, ms: performance.now() - started };
  } finally {
    await nc.close();
  }
}
