import { chmod, writeFile, readFile } from 'node:fs/promises';
import { evolveOnCommit, type Area } from '../area.ts';
import type { Clock, Ids } from '../clock.ts';
import type { Context, EventLog, EventRecord } from '../../store/types.ts';
import { typedRecords, type RecordOf } from '../../store/typed-records.ts';
import { ROLES, type Caller, type Role } from './access.ts';

/**
 * The supervisor's tokens: the operator's admin token, the core container's token, and tokens
 * issued with a role (for scripts and, later, apps). Each is a stream `supervisor/token/<id>`
 * whose last record says what it is (`token_issued`) or that it is gone (`token_revoked`).
 * Tokens are stored as issued (the core's must be handed to its container); tools never print
 * the `token` field.
 */

export const TOKEN_PREFIX = 'supervisor/token/';
const SNAPSHOT_VERSION = 1;

export interface TokenEntry {
  id: string;
  name: string;
  kind: Caller['kind'];
  role: Role;
  token: string;
  created: number;
  /** the installed app holding it (apps' own tokens) */
  slug?: string;
}

/** A token's records on `supervisor/token/<id>`: the last one says what it is. */
export type TokenRecord = { type: 'token_issued'; data: TokenEntry } | { type: 'token_revoked'; data: { id: string } };
const tokenRecords = typedRecords<TokenRecord>(TOKEN_PREFIX, { token_issued: true, token_revoked: true });

export class Tokens implements Area<RecordOf<TokenRecord>> {
  readonly name = 'supervisor-tokens';
  readonly snapshotVersion = SNAPSHOT_VERSION;
  readonly streamPrefix = TOKEN_PREFIX;
  readonly latestSuffices = true;
  private readonly byId = new Map<string, TokenEntry>();
  private readonly byToken = new Map<string, TokenEntry>();

  constructor(private readonly deps: { log: EventLog; clock: Clock; ids: Ids }) {
    evolveOnCommit(deps.log, this);
  }

  owns(record: EventRecord): record is RecordOf<TokenRecord> {
    return tokenRecords.owns(record);
  }

  evolve(record: RecordOf<TokenRecord>): void {
    const id = record.stream.slice(TOKEN_PREFIX.length);
    const old = this.byId.get(id);
    if (old) {
      this.byId.delete(id);
      this.byToken.delete(old.token);
    }
    if (record.type === 'token_issued') this.keep(record.data);
  }

  private keep(entry: TokenEntry) {
    this.byId.set(entry.id, entry);
    this.byToken.set(entry.token, entry);
  }

  snapshot(): unknown {
    return [...this.byId.values()];
  }

  restore(data: unknown): void {
    for (const e of data as TokenEntry[]) this.keep(e);
  }

  /** The caller a token stands for. */
  lookup(token: string): Caller | undefined {
    const e = this.byToken.get(token);
    if (!e) return undefined;
    if (e.kind === 'app') return { kind: 'app', id: e.id, name: e.name, role: e.role, ...(e.slug ? { slug: e.slug } : {}) };
    return { kind: e.kind, id: e.id, name: e.name };
  }

  list(): TokenEntry[] {
    return [...this.byId.values()];
  }

  /** The one token of a kind (`operator`, `core`), if issued. */
  ofKind(kind: 'operator' | 'core'): TokenEntry | undefined {
    for (const e of this.byId.values()) if (e.kind === kind) return e;
    return undefined;
  }

  /** Issues a token: 112 lower-case hex characters, as the original's. */
  async issue(spec: { name: string; kind: Caller['kind']; role: Role; slug?: string }, context: Context): Promise<TokenEntry> {
    if (!ROLES.includes(spec.role)) throw new Error(`unknown role ${JSON.stringify(spec.role)}: give one of ${ROLES.join(', ')}`);
    const entry: TokenEntry = { id: this.deps.ids.uuidHex(), name: spec.name, kind: spec.kind, role: spec.role, token: this.deps.ids.tokenHex(56), created: this.deps.clock.now(), ...(spec.slug ? { slug: spec.slug } : {}) };
    await this.record(entry.id, { type: 'token_issued', data: entry }, context);
    return entry;
  }

  async revoke(id: string, context: Context): Promise<boolean> {
    if (!this.byId.has(id)) return false;
    await this.record(id, { type: 'token_revoked', data: { id } }, context);
    return true;
  }

  private async record(id: string, kind: TokenRecord, context: Context): Promise<void> {
    await this.deps.log.append([tokenRecords.make(TOKEN_PREFIX + id, kind, context, this.deps.clock.now())]);
  }

  /**
   * A new token for the core container (the original makes one whenever it creates the
   * container): the old one stops working.
   */
  async rotateCore(context: Context): Promise<TokenEntry> {
    const old = this.ofKind('core');
    if (old) await this.revoke(old.id, context);
    return this.issue({ name: 'core', kind: 'core', role: 'core' }, context);
  }

  /**
   * The operator's admin token, issued on first start, written to `file` (mode 0600, one line)
   * whenever the file does not hold it.
   */
  async ensureOperator(file: string, context: Context): Promise<TokenEntry> {
    const entry = this.ofKind('operator') ?? (await this.issue({ name: 'operator', kind: 'operator', role: 'admin' }, context));
    const onDisk = await readFile(file, 'utf8').catch(() => '');
    if (onDisk.trim() !== entry.token) await writeFile(file, `${entry.token}\n`, { mode: 0o600 });
    await chmod(file, 0o600);
    return entry;
  }
}
