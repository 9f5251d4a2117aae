/**
 * The log explorer: the home at a moment, the records of a range with filters, and the chain of
 * a context back to the request that made it (its records, its parents, its user and token).
 * Everything is read from the log through its indexes; what it keeps in memory is each entity
 * stream's seqs and the state its last record left (so the home at a moment costs one batch
 * lookup of the records of the entities that changed after it) and the secrets seen in
 * the streams that hold them (so records are printed as `hearth replay` prints them).
 */
import type { EventLog, EventRecord } from '../../store/types.ts';
import { Redactor } from '../../store/redact.ts';
import { sourceOf, tokenOf, type ContextSource } from '../../store/context-token.ts';
import { ENTITY_STREAM, stateLeftBy, statesAt, type EntityTrack, type StoredState } from './state-at.ts';
import { matchesRecord, type RecordFilter } from './records.ts';

export interface ExplorerDeps {
  log: Pick<EventLog, 'read' | 'readStreams' | 'onCommit' | 'lastSeq' | 'get' | 'streamSeqs'>;
  /** a user's name as it is now; undefined when there is no such user (then the log is asked) */
  userName?(userId: string): string | null | undefined;
}

/** One range of the log with filters; times are epoch ms, bounds inclusive. */
export interface LogQuery extends RecordFilter {
  start?: number;
  end?: number;
  limit: number;
  /** records after this seq, in seq order (the next page) */
  afterSeq?: number;
  /** records before this seq: the `limit` nearest to it, still given in seq order */
  beforeSeq?: number;
}

export interface LogPage {
  /** each record as `hearth replay --format json` prints it */
  records: string[];
  /** more records match beyond this page (or the scan budget ran out before the range did) */
  more: boolean;
  /** the seq to page on from: after_seq for a forward page, before_seq for a backward one */
  cursor: number;
}

export interface TokenInfo {
  id: string;
  client_id: string | null;
  client_name: string | null;
  token_type: string | null;
  /** the token has been revoked since (the log still says what it was) */
  revoked: boolean;
}

export interface ContextLink {
  context: { id: string; parent_id: string | null; user_id: string | null };
  /** the first record made in the context: the call_service, bus event or state write that started it */
  cause: string | null;
  /** the records made in it, in seq order (at most MAX_CONTEXT_RECORDS) */
  records: string[];
  /** more records of it than those given */
  more: boolean;
  user: { id: string; name: string | null } | null;
  token: TokenInfo | null;
  /** where a change nobody asked for came from (an MQTT message and its topic), noted in the log beside the context */
  source: ContextSource | null;
}

/** A context followed back: itself first, then each parent in turn. */
export interface ContextChain {
  chain: ContextLink[];
}

export const DEFAULT_LOG_LIMIT = 100;
export const MAX_LOG_LIMIT = 1000;
// Records examined for one filtered page: a filter that matches little must not hold the log
// for a scan of millions; the page says `more` and the next request goes on from its cursor.
const SCAN_BUDGET = 200_000;
const MAX_CONTEXT_RECORDS = 500;
const MAX_PARENTS = 8;
// Where the secrets are: users and tokens, the public half of tokens, the supervisor's tokens,
// companion apps' registrations (webhook ids quoted in stream names and URLs elsewhere).
const SECRET_PREFIXES = ['auth/', 'authpub/', 'supervisor/token/', 'mobile_app/registration/'];
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export class Explorer {
  readonly #log: ExplorerDeps['log'];
  readonly #deps: ExplorerDeps;
  readonly #tracks = new Map<string, EntityTrack>();
  readonly #secrets = new Redactor();
  #lastTime = -Infinity;
  #ready: Promise<void> | undefined;

  constructor(deps: ExplorerDeps) {
    this.#deps = deps;
    this.#log = deps.log;
  }

  /**
   * Reads what is kept in memory, once, at the first question (a Hearth nobody explores pays
   * nothing); from then on each committed batch keeps it up to date.
   */
  #start(): Promise<void> {
    this.#ready ??= (async () => {
      const early: EventRecord[] = [];
      let loading = true;
      // subscribed before reading, so no commit falls between the two
      const stop = this.#log.onCommit((records) => {
        if (loading) early.push(...records);
        else for (const r of records) this.#observe(r);
      });
      try {
        await this.#load();
      } catch (err) {
        // the next question tries afresh (a closing log, a read error)
        stop();
        this.#tracks.clear();
        this.#ready = undefined;
        throw err;
      }
      for (const r of early) this.#observe(r);
      loading = false;
    })();
    return this.#ready;
  }

  async #load(): Promise<void> {
    // keys only: the seqs of every entity record, then the last record of each in one lookup
    let track: EntityTrack | undefined;
    let stream = '';
    for await (const k of this.#log.streamSeqs(ENTITY_STREAM)) {
      if (k.stream !== stream) {
        stream = k.stream;
        track = { seqs: [], state: null };
        this.#tracks.set(stream.slice(ENTITY_STREAM.length), track);
      }
      track!.seqs.push(k.seq);
    }
    const ids = [...this.#tracks.keys()];
    const lasts = await this.#log.get(ids.map((id) => this.#tracks.get(id)!.seqs.at(-1)!));
    lasts.forEach((r, i) => {
      if (r) this.#tracks.get(ids[i])!.state = stateLeftBy(r) ?? null;
    });
    for (const prefix of SECRET_PREFIXES) for await (const r of this.#log.readStreams(prefix)) this.#secrets.learn(r);
    for await (const r of this.#log.read({ reverse: true, limit: 1, rebuild: false })) this.#lastTime = Math.max(this.#lastTime, r.time);
  }

  #observe(r: EventRecord): void {
    if (r.time > this.#lastTime) this.#lastTime = r.time;
    if (r.stream.startsWith(ENTITY_STREAM)) {
      const state = stateLeftBy(r);
      const entityId = r.stream.slice(ENTITY_STREAM.length);
      let track = this.#tracks.get(entityId);
      if (!track) this.#tracks.set(entityId, (track = { seqs: [], state: null }));
      // a record the first read already saw is not counted twice
      if (state !== undefined && (track.seqs.length === 0 || track.seqs[track.seqs.length - 1] < r.seq)) {
        track.seqs.push(r.seq);
        track.state = state;
      }
    } else if (SECRET_PREFIXES.some((p) => r.stream.startsWith(p))) this.#secrets.learn(r);
  }

  /** The home after the last record at or before `at` (epoch ms): that record's seq (0: none) and every entity's state. */
  async stateAt(at: number): Promise<{ seq: number; states: StoredState[] }> {
    await this.#start();
    const seq = await this.seqAt(at, true);
    return { seq, states: seq === 0 ? [] : await statesAt(this.#log, this.#tracks, seq) };
  }

  /**
   * The last seq whose record is timed at or before `at` (before it, when not `inclusive`); 0
   * when there is none. A binary search over seqs, which takes records' times to grow with their
   * seqs, as the clock makes them (actors/clock.ts never goes back).
   */
  async seqAt(at: number, inclusive: boolean): Promise<number> {
    await this.#start();
    const fits = (time: number) => (inclusive ? time <= at : time < at);
    let lo = 0;
    let hi = this.#log.lastSeq();
    if (hi > 0 && fits(this.#lastTime)) return hi;
    // the answer is in [lo, hi]; lo is 0 or a seq known to fit
    while (lo < hi) {
      const mid = Math.floor((lo + hi + 1) / 2);
      let found: EventRecord | undefined;
      for await (const r of this.#log.read({ gte: mid, lte: hi, limit: 1, rebuild: false })) found = r;
      if (found && fits(found.time)) lo = found.seq;
      else hi = mid - 1;
    }
    return lo;
  }

  /** One page of records matching `q`, redacted as replay prints them. */
  async log(q: LogQuery): Promise<LogPage> {
    await this.#start();
    let gt = q.afterSeq ?? 0;
    let lte = this.#log.lastSeq();
    if (q.beforeSeq !== undefined) lte = Math.min(lte, q.beforeSeq - 1);
    if (q.start !== undefined) gt = Math.max(gt, await this.seqAt(q.start, false));
    if (q.end !== undefined) lte = Math.min(lte, await this.seqAt(q.end, true));
    const backward = q.beforeSeq !== undefined && q.afterSeq === undefined;
    const found: EventRecord[] = [];
    let cursor = backward ? lte + 1 : gt;
    let more = false;
    if (gt < lte) {
      let scanned = 0;
      for await (const r of this.#log.read({ gt, lte, reverse: backward })) {
        if (found.length >= q.limit || scanned >= SCAN_BUDGET) {
          more = true;
          break;
        }
        scanned++;
        cursor = r.seq;
        if (matchesRecord(r, q)) found.push(r);
      }
    }
    if (backward) found.reverse();
    return { records: found.map((r) => this.print(r)), more, cursor };
  }

  /** A record as `hearth replay --format json` prints it: secrets as "***", also where quoted. */
  print(r: EventRecord): string {
    const secretKeys = this.#secrets.learn(r);
    return this.#secrets.scrub(this.#secrets.json(r, secretKeys) ?? 'null');
  }

  /** The context and its parents, each with its records, the record that started it, its user and token. */
  async context(contextId: string): Promise<ContextChain> {
    await this.#start();
    const chain: ContextLink[] = [];
    const visited = new Set<string>();
    let id: string | null = contextId;
    while (id !== null && !visited.has(id) && chain.length <= MAX_PARENTS) {
      visited.add(id);
      const link = await this.#link(id);
      chain.push(link);
      id = link.context.parent_id;
    }
    return { chain };
  }

  async #link(contextId: string): Promise<ContextLink> {
    const records: EventRecord[] = [];
    let more = false;
    // a context id is a ULID: it names the moment it was made, and its records come after that
    const made = ulidTime(contextId);
    const gt = made === undefined ? 0 : await this.seqAt(made, false);
    let scanned = 0;
    for await (const r of this.#log.read({ gt })) {
      if (++scanned > SCAN_BUDGET) {
        more = true;
        break;
      }
      if (r.context.id !== contextId) continue;
      if (records.length >= MAX_CONTEXT_RECORDS) {
        more = true;
        break;
      }
      records.push(r);
    }
    const first = records[0];
    const context = first ? first.context : { id: contextId, parent_id: null, user_id: null };
    const tokenId = records.map((r) => tokenOf(r.context)).find((t) => t !== undefined);
    const source = records.map((r) => sourceOf(r.context)).find((s) => s !== undefined);
    return {
      context: { id: context.id, parent_id: context.parent_id, user_id: context.user_id },
      cause: first ? this.print(first) : null,
      records: records.map((r) => this.print(r)),
      more,
      user: context.user_id ? { id: context.user_id, name: await this.#userName(context.user_id) } : null,
      token: tokenId ? await this.#token(tokenId) : null,
      source: source ?? null,
    };
  }

  async #userName(userId: string): Promise<string | null> {
    const now = this.#deps.userName?.(userId);
    if (now !== undefined) return now;
    // a user deleted since: the name its records last gave
    let name: string | null = null;
    for await (const r of this.#log.read({ stream: `auth/user/${userId}`, rebuild: false })) {
      const d = r.data as { name?: unknown } | null;
      if (d && typeof d === 'object' && typeof d.name === 'string') name = d.name;
    }
    return name;
  }

  async #token(tokenId: string): Promise<TokenInfo> {
    const info: TokenInfo = { id: tokenId, client_id: null, client_name: null, token_type: null, revoked: false };
    for await (const r of this.#log.read({ stream: `auth/refresh_token/${tokenId}`, rebuild: false })) {
      const d = (r.data ?? {}) as Record<string, unknown>;
      if (r.type === 'refresh_token_created') {
        info.client_id = typeof d.client_id === 'string' ? d.client_id : null;
        info.client_name = typeof d.client_name === 'string' ? d.client_name : null;
        info.token_type = typeof d.token_type === 'string' ? d.token_type : null;
      } else if (r.type === 'refresh_token_revoked') info.revoked = true;
    }
    return info;
  }
}

/** The time a ULID was made at (epoch ms), or undefined for an id that is no ULID. */
export function ulidTime(id: string): number | undefined {
  if (typeof id !== 'string' || id.length !== 26) return undefined;
  let t = 0;
  for (let i = 0; i < 10; i++) {
    const v = CROCKFORD.indexOf(id[i].toUpperCase());
    if (v < 0) return undefined;
    t = t * 32 + v;
  }
  return t;
}
