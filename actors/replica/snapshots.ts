// Snapshots for read replicas, kept in a JetStream object store beside the exported stream
// (bucket `<stream>_snapshots`, object `latest`): the state of the areas a replica serves at one
// seq of the primary's log, and the stream message after which the records past that seq come.
//
// The primary's exporter writes one every `snapshot_every` exported records; a replica with an
// empty log (or one that fell behind what the stream still holds) starts from it instead of
// reading the whole stream. The areas are the same classes on both sides (EntityActors,
// Registries, CoreConfig, MirroredAuth), so a snapshot is restored by the code that made it.

import type { JetStreamClient, JetStreamManager } from 'nats';

/** Areas whose snapshots a replica is seeded with, by name. */
export const REPLICA_AREAS = ['entities', 'registries', 'core_config', 'auth_mirror'] as const;

export const SNAPSHOT_OBJECT = 'latest';
const FORMAT = 1;
// states written per slice of the upload, the event loop free in between
const SLICE = 2000;

export interface AreaPart {
  name: string;
  version: number;
  data: unknown;
}

export interface ReplicaSnapshot {
  /** the last record of the primary's log the areas cover */
  seq: number;
  /** the stream message (JetStream seq) after which records past `seq` are found */
  stream_seq: number;
  /** epoch ms, when it was taken */
  time: number;
  areas: Record<string, { version: number; data: unknown }>;
}

export const bucketOf = (stream: string) => `${stream}_snapshots`;

/** The latest snapshot of `stream`, or undefined when there is none (or it cannot be read as one). */
export async function readSnapshot(js: JetStreamClient, jsm: JetStreamManager, stream: string): Promise<ReplicaSnapshot | undefined> {
  // a replica only reads: it never makes the bucket (opening one makes it when missing)
  if (!(await hasBucket(jsm, stream))) return undefined;
  const os = await js.views.os(bucketOf(stream));
  const found = await os.get(SNAPSHOT_OBJECT);
  if (!found) return undefined;
  const text = await new Response(found.data).text();
  const ok = await found.error;
  if (ok) throw ok;
  const value = JSON.parse(text) as ReplicaSnapshot & { format?: number };
  if (value.format !== FORMAT || !Number.isSafeInteger(value.seq) || !Number.isSafeInteger(value.stream_seq)) return undefined;
  return value;
}

async function hasBucket(jsm: JetStreamManager, stream: string): Promise<boolean> {
  try {
    await jsm.streams.info(`OBJ_${bucketOf(stream)}`);
    return true;
  } catch (err) {
    if (/stream not found/i.test((err as Error).message)) return false;
    throw err;
  }
}

/** The seq of the latest snapshot of `stream` (0 when none), from its metadata only. */
export async function snapshotSeq(js: JetStreamClient, stream: string): Promise<number> {
  const os = await js.views.os(bucketOf(stream));
  const info = await os.info(SNAPSHOT_OBJECT);
  if (!info || info.deleted) return 0;
  const seq = Number(info.metadata?.seq);
  return Number.isSafeInteger(seq) ? seq : 0;
}

/**
 * Uploads a snapshot as the stream's latest. The parts are written as JSON a slice at a time, so
 * a home of 100k entities does not hold the event loop for the whole serialisation.
 */
export async function publishSnapshot(js: JetStreamClient, stream: string, seq: number, streamSeq: number, parts: AreaPart[], time = Date.now()): Promise<void> {
  // before the first await, so these are the areas at `seq`: only arrays of states (replaced on
  // change, never changed in place) are written later, a slice at a time
  const texts = parts.map((p) => (Array.isArray(p.data) ? undefined : JSON.stringify(p.data ?? null)));
  const os = await js.views.os(bucketOf(stream), { description: `Hearth snapshots for the replicas of stream ${stream}` });
  const encoder = new TextEncoder();
  async function* chunks(): AsyncGenerator<string> {
    yield `{"format":${FORMAT},"seq":${seq},"stream_seq":${streamSeq},"time":${time},"areas":{`;
    let first = true;
    for (const [i, part] of parts.entries()) {
      yield `${first ? '' : ','}${JSON.stringify(part.name)}:{"version":${part.version},"data":`;
      first = false;
      if (Array.isArray(part.data)) {
        for (let i = 0; i < part.data.length; i += SLICE) {
          const slice = part.data.slice(i, i + SLICE).map((v) => JSON.stringify(v) ?? 'null');
          yield (i === 0 ? '[' : ',') + slice.join(',');
          await new Promise((ok) => setImmediate(ok));
        }
        yield part.data.length === 0 ? '[]}' : ']}';
      } else yield `${texts[i]}}`;
    }
    yield '}}';
  }
  const source = chunks();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await source.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
  });
  await os.put({ name: SNAPSHOT_OBJECT, description: `areas at seq ${seq}`, metadata: { seq: String(seq), stream_seq: String(streamSeq) } }, body);
}
