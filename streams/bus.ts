import { Subject, filter, type Observable, type Subscription } from 'rxjs';
import type { EventLog, EventRecord } from '../store/types.ts';

/** Event types a match-all listener never receives (the original excludes them too). */
const EXCLUDED_FROM_ALL = new Set(['state_reported', 'homeassistant_close', 'core_close']);

/**
 * The bus: every committed record, in commit order, as an RxJS stream; bus events are the
 * records with an origin. Listener counts feed GET /api/events.
 */
export class Bus {
  private readonly subject = new Subject<EventRecord>();
  private readonly listeners = new Map<string, number>();
  /** all committed records */
  readonly records$: Observable<EventRecord> = this.subject.asObservable();
  /** committed bus events (records with an origin) */
  readonly events$: Observable<EventRecord> = this.records$.pipe(filter((r) => r.origin !== undefined));

  constructor(
    log: EventLog,
    private readonly logLine: (line: string) => void = () => {},
  ) {
    log.onCommit((records) => {
      for (const r of records) this.subject.next(r);
    });
  }

  /** Bus events of one type, or of every type but the excluded ones for `*`. */
  ofType(eventType: string): Observable<EventRecord> {
    if (eventType === '*') return this.events$.pipe(filter((r) => !EXCLUDED_FROM_ALL.has(r.type)));
    return this.events$.pipe(filter((r) => r.type === eventType));
  }

  /**
   * Calls `handler` with each bus event of `eventType` (`*` for all). A handler that throws —
   * a record it cannot format, say — skips that record with a log line naming `who`; the
   * other listeners, and later records, are not affected.
   */
  listen(eventType: string, who: string, handler: (r: EventRecord) => void): Subscription {
    return this.ofType(eventType).subscribe(this.contained(who, handler));
  }

  /** `handler`, with whatever it throws logged and contained to the record at hand. */
  contained(who: string, handler: (r: EventRecord) => void): (r: EventRecord) => void {
    return (r) => {
      try {
        handler(r);
      } catch (err) {
        this.logLine(`Skipped record ${r.seq} (${r.type}) for ${who}: ${(err as Error)?.stack ?? err}`);
      }
    };
  }

  /** Counts a listener of an event type until the returned function is called. */
  countListener(eventType: string): () => void {
    this.listeners.set(eventType, (this.listeners.get(eventType) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const n = (this.listeners.get(eventType) ?? 1) - 1;
      if (n <= 0) this.listeners.delete(eventType);
      else this.listeners.set(eventType, n);
    };
  }

  /** `[{event, listener_count}]` as GET /api/events answers. */
  listenerCounts(): Array<{ event: string; listener_count: number }> {
    return [...this.listeners].map(([event, listener_count]) => ({ event, listener_count }));
  }

  complete(): void {
    this.subject.complete();
  }
}
