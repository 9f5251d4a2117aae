import type { Area } from '../area.ts';
import { typedRecords, type RecordOf } from '../../store/typed-records.ts';
import type { Clock } from '../clock.ts';
import type { Context, EventLog, EventRecord, Origin } from '../../store/types.ts';
import { isoformat } from '../../machines/python/isoformat.ts';
import { parseDatetime, toEpochMs } from '../history/time.ts';
import { slugify, uniqueId } from '../entities/slug.ts';
import type { EntityActors } from '../entities/registry.ts';

/**
 * The original's `tag` component: NFC and QR tags as a storage collection (`tag/list`,
 * `create`, `update`, `delete`, `subscribe`), each tag's `last_scanned` moved on by every
 * committed `tag_scanned` event (a tag scanned for the first time is created), and a
 * `tag.<name>` entity whose state is the last scan. Each change is one record on `tag/<tag_id>`
 * holding the whole tag (`tag_created`, `tag_updated`), or `tag_removed`; restored at start.
 */

/** Every tag's stream starts with this. */
export const TAG_PREFIX = 'tag/';
const SNAPSHOT_VERSION = 1;

/** A tag's records on `tag/<tag_id>`: created and updated hold the whole tag. */
export type TagRecord = { type: 'tag_created' | 'tag_updated'; data: TagItem } | { type: 'tag_removed'; data: { tag_id: string } };
const tagRecords = typedRecords<TagRecord>(TAG_PREFIX, { tag_created: true, tag_updated: true, tag_removed: true });

/** A tag as the original's collection holds it; `entity_id` is Hearth's own and never sent. */
export interface TagItem {
  id: string;
  tag_id: string;
  name?: string;
  description?: string;
  /** ISO time, as the original stores it */
  last_scanned?: string;
  device_id?: string;
  entity_id: string;
}

/** What a client may set on a tag. */
export interface TagFields {
  name?: string;
  description?: string;
  last_scanned?: string;
  device_id?: string;
}

/** A change as the collection's subscribers hear it. */
export interface TagChange {
  change_type: 'added' | 'updated' | 'removed';
  tag_id: string;
  item: Record<string, unknown>;
}

/** A refusal with the original's WebSocket code and message. */
export class TagError extends Error {
  constructor(
    readonly code: 'home_assistant_error' | 'not_found' | 'invalid_format',
    message: string,
  ) {
    super(message);
  }
}

/** A tag as the wire shows it: the collection's item without Hearth's entity id. */
export function tagWire(tag: TagItem): Record<string, unknown> {
  const { entity_id: _entityId, ...item } = tag;
  return item;
}

/** cv.datetime, stored as its isoformat; undefined when the text is no datetime. */
export function tagTime(text: string): string | undefined {
  const p = parseDatetime(text);
  if (!p) return undefined;
  const date = `${String(p.year).padStart(4, '0')}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
  const time = `${String(p.hour).padStart(2, '0')}:${String(p.minute).padStart(2, '0')}:${String(p.second).padStart(2, '0')}${p.micros ? `.${String(p.micros).padStart(6, '0')}` : ''}`;
  if (p.offsetMinutes === undefined) return `${date}T${time}`;
  const sign = p.offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(p.offsetMinutes);
  return `${date}T${time}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

type Listener = (changes: TagChange[]) => void;

/** Fires a bus event; resolves with its committed record. */
export type FireEvent = (eventType: string, data: Record<string, unknown>, origin: Origin, context: Context) => Promise<EventRecord>;

/** What the tags need: the log, the clock, the entities their tag entities are written to. */
export interface TagsDeps {
  log: EventLog;
  clock: Clock;
  entities: EntityActors;
  /** where a scan that could not be recorded is told of */
  logLine?: (line: string) => void;
}

/** The tag collection: its records' projection, its changes, and the scans it follows. */
export class Tags implements Area<RecordOf<TagRecord>> {
  readonly name = 'tags';
  readonly snapshotVersion = SNAPSHOT_VERSION;
  readonly streamPrefix = TAG_PREFIX;
  // lists keep the order tags were made in, which only the whole history has (tags are few)
  readonly latestSuffices = false;
  private readonly tags = new Map<string, TagItem>();
  private readonly listeners = new Set<Listener>();
  private queue: Promise<unknown> = Promise.resolve();
  /** the tag update each committed scan causes, by the scan's seq, until its scanner has waited for it */
  private readonly following = new Map<number, Promise<void>>();
  private fireEvent?: FireEvent;

  constructor(private readonly deps: TagsDeps) {
    deps.log.onCommit((records) => {
      const changes: TagChange[] = [];
      for (const r of records) {
        if (this.owns(r)) {
          const change = this.apply(r);
          if (change) changes.push(change);
        } else if (r.stream === 'bus' && r.type === 'tag_scanned' && typeof r.data?.tag_id === 'string') {
          const followed = this.serially(() => this.scanned(r)).catch((err) => deps.logLine?.(`tag ${r.data.tag_id}: scan not recorded: ${(err as Error).message}`));
          this.following.set(r.seq, followed);
          // nobody waits for a scan a client fired itself
          void followed.then(() => setTimeout(() => this.following.delete(r.seq), 0));
        }
      }
      if (changes.length) for (const l of [...this.listeners]) l(changes);
    });
  }

  owns(record: EventRecord): record is RecordOf<TagRecord> {
    return tagRecords.owns(record);
  }

  evolve(record: RecordOf<TagRecord>): void {
    this.apply(record);
  }

  private apply(record: RecordOf<TagRecord>): TagChange | undefined {
    const tagId = record.stream.slice(TAG_PREFIX.length);
    if (record.type === 'tag_removed') {
      const gone = this.tags.get(tagId);
      this.tags.delete(tagId);
      return gone && { change_type: 'removed', tag_id: tagId, item: tagWire(gone) };
    }
    const tag = record.data;
    this.tags.set(tagId, tag);
    return { change_type: record.type === 'tag_created' ? 'added' : 'updated', tag_id: tagId, item: tagWire(tag) };
  }

  snapshot(): unknown {
    return [...this.tags.values()];
  }

  restore(data: unknown): void {
    this.tags.clear();
    for (const tag of (data ?? []) as TagItem[]) this.tags.set(tag.tag_id, tag);
  }

  /** Gives the tags the bus, for scans (set once the bus is up). */
  start(deps: { fireEvent: FireEvent }): void {
    this.fireEvent = deps.fireEvent;
  }

  /**
   * The original's async_scan_tag: fires `tag_scanned` (with the tag's name) and resolves once
   * the tag's last scan it causes is committed, so the scanner's answer follows both.
   */
  async scan(tagId: string, deviceId: string | null, context: Context): Promise<void> {
    if (!this.fireEvent) throw new Error('tags are not started');
    const record = await this.fireEvent('tag_scanned', { tag_id: tagId, name: this.tags.get(tagId)?.name ?? null, device_id: deviceId }, 'LOCAL', context);
    await this.following.get(record.seq);
    this.following.delete(record.seq);
  }

  list(): TagItem[] {
    return [...this.tags.values()];
  }

  get(tagId: string): TagItem | undefined {
    return this.tags.get(tagId);
  }

  /** Calls `onChange` with the changes of each committed batch; returns the unsubscribe. */
  subscribe(onChange: Listener): () => void {
    this.listeners.add(onChange);
    return () => void this.listeners.delete(onChange);
  }

  // changes run one at a time, each decided against the committed tags
  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Creates a tag (a fresh uuid when no id is given); refused when the id is taken. */
  create(tagId: string | undefined, fields: TagFields, context: Context): Promise<TagItem> {
    return this.serially(async () => {
      const id = tagId || crypto.randomUUID();
      if (this.tags.has(id)) throw new TagError('home_assistant_error', `Tag with id: ${id} already exists.`);
      const tag = this.made(id, fields);
      await this.write({ type: 'tag_created', data: tag }, context);
      return tag;
    });
  }

  /** Changes a tag's fields. */
  update(tagId: string, fields: TagFields, context: Context): Promise<TagItem> {
    return this.serially(async () => {
      const current = this.tags.get(tagId);
      if (!current) throw new TagError('not_found', `Unable to find tag_id ${tagId}`);
      const tag = { ...current, ...fields };
      await this.write({ type: 'tag_updated', data: tag }, context);
      return tag;
    });
  }

  /** Deletes a tag and its entity. */
  remove(tagId: string, context: Context): Promise<void> {
    return this.serially(async () => {
      const current = this.tags.get(tagId);
      if (!current) throw new TagError('not_found', `Unable to find tag_id ${tagId}`);
      await this.append({ type: 'tag_removed', data: { tag_id: tagId } }, context);
      if (this.deps.entities.has(current.entity_id)) await this.deps.entities.remove(current.entity_id, context);
    });
  }

  /** A new tag; the original's entity registry names its entity after the tag, else after its id. */
  private made(id: string, fields: TagFields): TagItem {
    const taken = (objectId: string) => this.deps.entities.has(`tag.${objectId}`) || [...this.tags.values()].some((t) => t.entity_id === `tag.${objectId}`);
    return { id, tag_id: id, ...fields, entity_id: `tag.${uniqueId(slugify(fields.name ?? id), taken)}` };
  }

  /** Records a tag as it now is, and its entity's state. */
  private async write(kind: TagRecord & { data: TagItem }, context: Context): Promise<void> {
    await this.append(kind, context);
    const tag = kind.data;
    await this.deps.entities.write(tag.entity_id, { state: entityState(tag), attributes: entityAttributes(tag), force_update: false }, context);
  }

  private async append(kind: TagRecord, context: Context): Promise<void> {
    await this.deps.log.append([tagRecords.make(TAG_PREFIX + kind.data.tag_id, kind, context, this.deps.clock.now())]);
  }

  /** A committed scan: the tag's last scan (and scanner) moved on, the tag made if it is new. */
  private async scanned(r: EventRecord): Promise<void> {
    const fields: TagFields = { last_scanned: isoformat(r.time) };
    if (typeof r.data.device_id === 'string' && r.data.device_id) fields.device_id = r.data.device_id;
    const context: Context = { id: r.context.id, parent_id: r.context.parent_id, user_id: r.context.user_id };
    const current = this.tags.get(r.data.tag_id);
    if (current) await this.write({ type: 'tag_updated', data: { ...current, ...fields } }, context);
    else await this.write({ type: 'tag_created', data: this.made(r.data.tag_id, fields) }, context);
  }
}

/** The tag entity's state: its last scan to the millisecond, as the original shows it. */
function entityState(tag: TagItem): string {
  const p = tag.last_scanned === undefined ? undefined : parseDatetime(tag.last_scanned);
  if (!p) return 'unknown';
  return isoformat(toEpochMs(p, 'UTC'), 'milliseconds');
}

function entityAttributes(tag: TagItem): Record<string, unknown> {
  return { tag_id: tag.tag_id, last_scanned_by_device_id: tag.device_id ?? null, friendly_name: tag.name ?? `Tag ${tag.tag_id}` };
}
