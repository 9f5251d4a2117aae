/**
 * An uploaded backup taken in (POST /backups/new/upload, supervisor-wire §5.9): written as it
 * arrives to a partial file in the first location's folder, then given its name there (the
 * `filename` asked for, else `<slug>.tar`) and copied to the other locations. The same backup
 * again adds only the locations it lacks; another backup under a known slug is refused.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type { Context } from '../../../store/types.ts';
import { SupervisorError, UNKNOWN_ERROR, badRequest } from '../errors.ts';
import { BackupReader } from './archive/reader.ts';
import { BACKUP_SLUG, BackupMetaError, type BackupMeta } from './archive/backup-json.ts';
import { locationName } from './locations.ts';
import type { BackupManager } from './manager.ts';

/** An upload as asked for: where it goes and under which name. */
export interface UploadRequest {
  /** location names, the first one primary; none: the local folder */
  locations: string[];
  fileName: string | null;
  context: Context;
}

/**
 * Writes the uploaded tar, as it arrives, into the file `open` makes (once, when the tar begins);
 * fails when the request holds no such tar.
 */
export type ReceiveUpload = (open: () => Writable) => Promise<void>;

/** Takes in an upload that `receive` writes; answers the backup's slug. */
export async function importUpload(manager: BackupManager, asked: UploadRequest, receive: ReceiveUpload): Promise<string> {
  const request = { ...asked, locations: asked.locations.length ? asked.locations : [locationName(null)] };
  // an unknown or inactive mount is refused before the body is read
  for (const location of request.locations) await manager.locationDir(location);
  const dir = await manager.locationDir(request.locations[0]);
  await mkdir(dir, { recursive: true });
  const partial = join(dir, `upload-${randomUUID()}.tar.partial`);
  // whatever happens the partial file goes: renamed into place, or removed
  try {
    return await manager.whileWriting(partial, async () => {
      // a new file only: never through whatever might stand at its name
      await receive(() => createWriteStream(partial, { flags: 'wx' }));
      return place(manager, request, partial);
    });
  } finally {
    await rm(partial, { force: true });
  }
}

/** The received file read, checked, and given its name in each location that lacks it. */
async function place(manager: BackupManager, request: UploadRequest, partial: string): Promise<string> {
  let meta: BackupMeta;
  try {
    meta = (await BackupReader.open(partial)).meta;
  } catch (err) {
    manager.deps.logger.warning(`the uploaded file is not a backup: ${(err as Error).message}`);
    // a readable backup.json that breaks a rule is named, field and all; anything else gets the original's answer
    throw new SupervisorError(err instanceof BackupMetaError ? err.message : UNKNOWN_ERROR);
  }
  const { slug } = meta;
  // the slug names the file when no filename is given
  if (!BACKUP_SLUG.test(slug)) throw badRequest(`Invalid backup slug ${JSON.stringify(slug)}: a backup's slug is 8 hexadecimal digits`);
  const known = manager.get(slug);
  if (known && JSON.stringify(comparable(known.meta)) !== JSON.stringify(comparable(meta))) throw new SupervisorError(UNKNOWN_ERROR);
  const fileName = request.fileName ?? `${slug}.tar`;
  const [primary, ...others] = request.locations;
  const lacks = (location: string) => !manager.get(slug)?.copies.has(location);
  await manager.deps.jobs.run({ name: 'backup_manager_import_backup', reference: slug, keep: true, context: request.context }, async () => {
    const source = lacks(primary) ? await manager.adopt(partial, primary, fileName) : partial;
    for (const location of others) if (lacks(location)) await manager.copyTo(source, location, fileName);
  }).done;
  return slug;
}

/** What must agree for an upload to be another copy of a known backup (not `protected`: that is per copy). */
function comparable(meta: BackupMeta) {
  const { protected: _p, ...rest } = meta as BackupMeta & { docker?: unknown };
  delete (rest as { docker?: unknown }).docker;
  return rest;
}
