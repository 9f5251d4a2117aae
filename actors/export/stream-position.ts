// Where an export stands, read from the JetStream stream itself: its last message's
// `Nats-Msg-Id` is the seq of the last record it holds. The stream is made when missing, and a
// stream that is not this log's (other subjects, foreign messages, seqs past the log's end) is
// refused rather than written to.
import type { JetStreamManager } from 'nats';
import type { NatsExportConfig } from './config.ts';

/** The stream's last message: the log seq it holds (0: none) and its stream seq. */
export interface StreamPosition {
  /** the log seq of the last record in the stream */
  position: number;
  /** the stream seq of the stream's last message */
  lastSeq: number;
}

/** Reads (or makes) the export's stream and finds where it stands; `logLastSeq` reads the log's last seq once the stream is read. */
export async function streamPosition(jsm: JetStreamManager, config: NatsExportConfig, logLastSeq: () => number): Promise<StreamPosition> {
  let lastSeq = 0;
  try {
    const info = await jsm.streams.info(config.stream);
    const wanted = `${config.subject_prefix}.>`;
    if (!info.config.subjects?.includes(wanted)) {
      throw new Error(`stream ${config.stream} exists without the subjects ${wanted} (it takes ${JSON.stringify(info.config.subjects ?? [])}): change subject_prefix or the stream`);
    }
    lastSeq = info.state.last_seq;
  } catch (err) {
    if (!/stream not found/i.test((err as Error).message)) throw err;
    // a stream of this name made meanwhile by someone else is checked at the next connect
    await jsm.streams.add({ name: config.stream, subjects: [`${config.subject_prefix}.>`] });
  }
  let position = 0;
  if (lastSeq > 0) {
    const last = await jsm.streams.getMessage(config.stream, { seq: lastSeq });
    const id = last.header?.get('Nats-Msg-Id') ?? '';
    position = Number(id);
    if (!/^\d+$/.test(id) || !Number.isSafeInteger(position)) throw new Error(`the last message of stream ${config.stream} has no Hearth msg id (${JSON.stringify(id)}): is the stream shared?`);
  }
  const logLast = logLastSeq();
  if (position > logLast) {
    // records up to there would be taken as exported: a stream of another (or a wiped) data directory
    throw new Error(`stream ${config.stream} already holds seq ${position}, past this log's last seq ${logLast}: is it the stream of another data directory?`);
  }
  return { position, lastSeq };
}
