// Retention: deleting the records older than a time, with their index entries, in batches.
import { decodeRecord } from './codec.ts';
import { historyEntity, historyKey, seqKey, seqOfKey, streamKey } from './keys.ts';
import type { KeySpaces } from './log-db.ts';
import type { LogWriter } from './log-writes.ts';
import type { EventRecord } from './types.ts';

// Records examined, and at most deleted, per purge batch, so a purge never builds one huge batch.
const PURGE_CHUNK = 1000;

/** What one purge is asked to do. */
export interface PurgeRequest {
  /** records up to this seq are examined */
  last: number;
  /** records older than this (epoch ms) are deleted */
  before: number;
  /** records it says to keep are kept whatever their time */
  keep?: (record: EventRecord) => boolean;
  /** true once the log is closing: the purge stops between batches */
  closing: () => boolean;
}

/** Deletes the records a purge asks for, a batch at a time; how many it deleted. */
export async function purgeRecords(spaces: KeySpaces, writer: LogWriter, request: PurgeRequest): Promise<number> {
  const { last, before, keep, closing } = request;
  let deleted = 0;
  const entries = spaces.records.iterator({ lte: seqKey(last) });
  try {
    // times are not guaranteed to grow with seq, so every record up to maxSeq is examined
    while (!closing()) {
      const chunk = await entries.nextv(PURGE_CHUNK);
      if (chunk.length === 0) break;
      const old = chunk.map(([key, value]) => decodeRecord(seqOfKey(key), value)).filter((record) => record.time < before && !keep?.(record));
      if (old.length === 0) continue;
      await writer.write((batch) => {
        for (const record of old) {
          batch.del(seqKey(record.seq), { sublevel: spaces.records });
          batch.del(streamKey(record.stream, record.seq), { sublevel: spaces.byStream });
          const entity = historyEntity(record);
          if (entity !== undefined) batch.del(historyKey(entity, record.time, record.seq), { sublevel: spaces.byEntityTime });
        }
      });
      deleted += old.length;
    }
  } finally {
    await entries.close();
  }
  return deleted;
}
