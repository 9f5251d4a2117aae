/**
 * Reads a backup file (supervisor-wire §5.1–§5.5): the whole outer tar is scanned (backup.json is
 * last), its metadata validated (`snapshot.json` preferred when an old backup has it), and a
 * password checked against an inner archive before any part is extracted.
 */
import { createReadStream } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { BACKUP_JSON, LEGACY_BACKUP_JSON, parseBackupJson, type BackupMeta } from './backup-json.ts';
import { extractInnerArchive, listInnerArchive } from './extract.ts';
import { innerArchiveName } from './inner.ts';
import { InvalidPasswordError, passwordMatches, SecureTarKeys } from '../securetar/securetar.ts';
import { TarFormatError, type TarEntry } from './tar.ts';
import { scanTarFile } from './tar-read.ts';

/** A member of the outer tar. */
export interface BackupMember {
  /** as stored (`./backup.json`, `homeassistant.tar.gz`) */
  name: string;
  size: number;
  mtime: number;
  /** where its data starts in the file */
  offset: number;
}

export class BackupReadError extends Error {
  readonly code = 'HEARTH_BACKUP_READ';
  constructor(message: string) {
    super(message);
    this.name = 'BackupReadError';
  }
}

// names are compared without their `./` (the original writes inner parts without it, metadata with it)
const plain = (name: string) => name.replace(/^(\.\/)+/, '');

export class BackupReader {
  private keys?: SecureTarKeys;

  private constructor(
    readonly path: string,
    readonly meta: BackupMeta,
    readonly members: readonly BackupMember[],
  ) {}

  /**
   * Opens a backup: scans it, validates its metadata and, when a password is given for a
   * protected backup, checks it (InvalidPasswordError) before returning.
   */
  static async open(path: string, options: { password?: string | null } = {}): Promise<BackupReader> {
    let file: FileHandle;
    try {
      file = await open(path, 'r');
    } catch (error) {
      throw new BackupReadError(`Cannot open backup at ${path}: ${(error as Error).message}`);
    }
    try {
      let headers;
      try {
        headers = await scanTarFile(file);
      } catch (error) {
        if (error instanceof TarFormatError) throw new BackupReadError(`Can't read backup tarfile ${path}: ${error.message}`);
        throw error;
      }
      const members = headers.filter((header) => header.entry.type === 'file').map(({ entry, dataOffset }) => ({ name: entry.name, size: entry.size, mtime: entry.mtime, offset: dataOffset }));
      const metaMember = findLast(members, LEGACY_BACKUP_JSON) ?? findLast(members, BACKUP_JSON);
      if (!metaMember) throw new BackupReadError(`Can't read backup tarfile ${path}: it has no backup.json`);
      const raw = Buffer.alloc(metaMember.size);
      await file.read(raw, 0, raw.length, metaMember.offset);
      const reader = new BackupReader(path, parseBackupJson(raw), members);
      if (options.password) await reader.usePassword(options.password);
      return reader;
    } finally {
      await file.close();
    }
  }

  /** The member holding a part (`homeassistant`, an app slug, a folder such as `addons/local`, `supervisor`). */
  member(part: string): BackupMember | undefined {
    return findLast(this.members, innerArchiveName(part, this.meta.compressed));
  }

  /** The raw bytes of a member (as stored: compressed and encrypted). */
  memberBytes(member: BackupMember): AsyncIterable<Buffer> {
    if (member.size === 0) return (async function* () {})();
    return createReadStream(this.path, { start: member.offset, end: member.offset + member.size - 1 });
  }

  /**
   * The original's password check: the first inner archive must decrypt. A backup with no inner
   * archive accepts any password; an unprotected one needs none.
   */
  async passwordMatches(password: string): Promise<boolean> {
    if (!this.meta.protected) return true;
    const ending = `.tar${this.meta.compressed ? '.gz' : ''}`;
    const first = this.members.find((member) => member.name.endsWith(ending));
    if (!first) return true;
    return passwordMatches(this.memberBytes(first), new SecureTarKeys(password));
  }

  /** Sets the password for extraction after checking it. */
  async usePassword(password: string): Promise<void> {
    if (!this.meta.protected) return;
    const keys = new SecureTarKeys(password);
    const ending = `.tar${this.meta.compressed ? '.gz' : ''}`;
    const first = this.members.find((member) => member.name.endsWith(ending));
    if (first && !(await passwordMatches(this.memberBytes(first), keys))) throw new InvalidPasswordError(`Invalid password for backup ${this.meta.slug}`);
    this.keys = keys;
  }

  private partKeys(part: string): SecureTarKeys | undefined {
    if (!this.meta.protected) return undefined;
    if (!this.keys) throw new InvalidPasswordError(`backup ${this.meta.slug} is protected: a password is needed to read ${part}`);
    return this.keys;
  }

  private required(part: string): BackupMember {
    const member = this.member(part);
    if (!member) throw new BackupReadError(`backup ${this.meta.slug} has no ${innerArchiveName(part, this.meta.compressed)}`);
    return member;
  }

  /** The entries of a part's inner archive, read without extracting them. */
  async entries(part: string): Promise<TarEntry[]> {
    const keys = this.partKeys(part);
    return listInnerArchive(this.memberBytes(this.required(part)), { compressed: this.meta.compressed, keys });
  }

  /** Extracts a part into `target` (see extractInnerArchive for what is refused). */
  async extract(part: string, target: string): Promise<TarEntry[]> {
    const keys = this.partKeys(part);
    return extractInnerArchive(this.memberBytes(this.required(part)), target, { compressed: this.meta.compressed, keys });
  }
}

/**
 * Where Core's config is in an extracted `homeassistant` part: under `data/` since v2, at the top
 * of the archive in v1 backups (the original checks the same way).
 */
export async function coreConfigDir(extracted: string): Promise<string> {
  const data = join(extracted, 'data');
  return (await stat(data).then((s) => s.isDirectory(), () => false)) ? data : extracted;
}

function findLast(members: readonly BackupMember[], name: string): BackupMember | undefined {
  // a name written twice counts as its last copy, as tar extraction leaves it
  for (let i = members.length - 1; i >= 0; i--) if (plain(members[i].name) === name) return members[i];
  return undefined;
}
