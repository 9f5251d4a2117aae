// A whole backup as the supervisor makes one: the core's log exported (backup/start's
// EventLog.exportTo, 1M state_changed records), the core's data directory archived without its
// live log, and 1 GiB of one app's data, into one compressed backup file (BackupWriter, gzip
// level 6 as the original). The baseline is `tar -czf` of the same files (the export and the
// app's data) with GNU tar and gzip. Then the restore: the backup read and checked
// (BackupReader), its core and app parts extracted, and the core's log rebuilt from the export
// as a restored core does at its next start (restoreLogFromExport), beside `tar -xzf` of the
// baseline's archive. And SecureTar's key derivation for an encrypted backup beside libsodium's
// crypto_pwhash called directly with the same cost.
import { execFile } from 'node:child_process';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sodium from 'libsodium-wrappers-sumo';
import { openEventLog } from '../store/log.ts';
import { CORE_EXPORT_DIR } from '../store/backup-layout.ts';
import { BackupWriter, appArchiveSources } from '../actors/supervisor/backups/archive/writer.ts';
import { BackupReader, coreConfigDir } from '../actors/supervisor/backups/archive/reader.ts';
import { restoreLogFromExport } from '../store/log-restore.ts';
import { backupDate, backupSlug, nowMicros } from '../actors/supervisor/backups/archive/backup-json.ts';
import { CORE_ARCHIVE_EXCLUDE } from '../actors/supervisor/backups/create.ts';
import { SecureTarKeys } from '../actors/supervisor/backups/securetar/securetar.ts';
import { ROOT_KEY_COST } from '../actors/supervisor/backups/securetar/keys.ts';
import { stateRecords } from './replay.ts';
import { isMain, median, ms, num, removeDir, runAlone, tempDir, timeRow, type BenchOptions, type BenchResult, type Row } from './common.ts';

const run$ = promisify(execFile);
const RECORDS = Number(process.env.HEARTH_BACKUP_RECORDS ?? 1_000_000);
const APP_BYTES = Number(process.env.HEARTH_BACKUP_APP_BYTES ?? 1024 ** 3);
const CHUNK = 10_000;
const FILE_BYTES = 16 * 1024 * 1024;
const DERIVATIONS = 7;

/** App data that compresses the way real data does: half random bytes, half repeated text per file. */
async function appData(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const text = Buffer.from('sensor.temperature,21.5,2026-11-24T10:00:00Z\n'.repeat(Math.ceil(FILE_BYTES / 2 / 46))).subarray(0, FILE_BYTES / 2);
  for (let written = 0, n = 0; written < APP_BYTES; n++) {
    const size = Math.min(FILE_BYTES, APP_BYTES - written);
    const half = Math.floor(size / 2);
    await writeFile(join(dir, `part-${n}.bin`), Buffer.concat([randomBytes(half), text.subarray(0, size - half)]));
    written += size;
  }
}

/**
 * One backup's v3 key derivation (SecureTarKeys.rootForWriting: the Argon2id root key and the
 * validation key) beside crypto_pwhash alone with the same cost, alternated and taking turns
 * to go first so that both meet the same machine; medians, since a shared box stalls single runs.
 */
async function keyDerivation(): Promise<Row> {
  await sodium.ready;
  const password = 'correct horse battery staple';
  const raw: number[] = [];
  const securetar: number[] = [];
  const timed = async (into: number[], work: () => unknown) => {
    const started = performance.now();
    await work();
    into.push(performance.now() - started);
  };
  const direct = () => sodium.crypto_pwhash(32, Buffer.from(password, 'utf8'), randomBytes(16), ROOT_KEY_COST.opslimit, ROOT_KEY_COST.memlimit, sodium.crypto_pwhash_ALG_ARGON2ID13);
  const secureTar = () => new SecureTarKeys(password).rootForWriting();
  for (let i = 0; i < DERIVATIONS; i++) {
    if (i % 2 === 0) await timed(raw, direct);
    await timed(securetar, secureTar);
    if (i % 2 === 1) await timed(raw, direct);
  }
  const value = median(securetar);
  const baseline = median(raw);
  const spread = (runs: number[]) => `${ms(Math.min(...runs))}–${ms(Math.max(...runs))}`;
  return timeRow(
    'SecureTar v3 key derivation (Argon2id, opslimit 8, 16 MiB)',
    value,
    { label: 'crypto_pwhash called directly', value: baseline },
    { text: '≤ 1.5× raw', met: value <= 1.5 * baseline },
    `medians of ${DERIVATIONS} alternated runs each; SecureTar ${spread(securetar)}, crypto_pwhash ${spread(raw)}`,
  );
}

export async function run(_options: BenchOptions = {}): Promise<BenchResult> {
  const keys = await keyDerivation();
  const dir = await tempDir('backup');
  try {
    const coreDir = join(dir, 'core');
    const log = await openEventLog({ path: join(coreDir, 'log'), commit: 'fast' });
    const last = new Map<number, unknown>();
    const t0 = Date.now() - 3 * 86_400_000;
    for (let n = 0; n < RECORDS; n += CHUNK) await log.append(stateRecords(n, Math.min(RECORDS, n + CHUNK), last, t0));
    const appDir = join(dir, 'app');
    await appData(appDir);

    let started = performance.now();
    const manifest = await log.exportTo({ dir: join(coreDir, CORE_EXPORT_DIR), mode: 'full' });
    const exportMs = performance.now() - started;
    await log.close();

    started = performance.now();
    const date = backupDate(nowMicros());
    const slug = backupSlug('bench', date);
    const path = join(dir, `${slug}.tar`);
    const writer = await BackupWriter.create({ path, compressed: true });
    await writer.addCore({ version: '2026.11.0', settings: {}, configDir: coreDir, excludeDatabase: false, exclude: CORE_ARCHIVE_EXCLUDE });
    const coreDone = performance.now();
    await writer.addApp({ slug: 'local_bench', name: 'Bench', version: '1.0.0' }, appArchiveSources({ addonJson: {}, dataDir: appDir }));
    const finished = await writer.finish({ slug, name: 'bench', date, type: 'partial', supervisor_version: '2026.11.0' });
    const archiveMs = performance.now() - started;
    const coreArchiveMs = coreDone - started;

    started = performance.now();
    await run$('tar', ['-czf', join(dir, 'raw.tar.gz'), '-C', dir, `core/${CORE_EXPORT_DIR}`, 'app']);
    const rawMs = performance.now() - started;
    const rawBytes = (await stat(join(dir, 'raw.tar.gz'))).size;

    started = performance.now();
    const reader = await BackupReader.open(path);
    const restored = join(dir, 'restored');
    await mkdir(join(restored, 'homeassistant'), { recursive: true });
    await mkdir(join(restored, 'app'), { recursive: true });
    await reader.extract('homeassistant', join(restored, 'homeassistant'));
    const restoredCore = await coreConfigDir(join(restored, 'homeassistant'));
    const extractedMs = performance.now() - started;
    await reader.extract('local_bench', join(restored, 'app'));
    const appExtractMs = performance.now() - started - extractedMs;
    const rebuilt = await restoreLogFromExport(restoredCore, () => {});
    if (!rebuilt || rebuilt.records !== manifest.records) throw new Error(`the restored log holds ${rebuilt?.records} records, not ${manifest.records}`);
    const restoreMs = performance.now() - started;

    started = performance.now();
    await mkdir(join(dir, 'raw-restored'));
    await run$('tar', ['-xzf', join(dir, 'raw.tar.gz'), '-C', join(dir, 'raw-restored')]);
    const rawRestoreMs = performance.now() - started;

    return {
      name: 'backup',
      title: `a compressed backup of a core log of ${num(RECORDS, 0)} events and ${num(APP_BYTES / 1024 ** 3, 2)} GiB of app data`,
      rows: [
        timeRow('backup: export + archive (core + app)', exportMs + archiveMs, { label: 'tar -czf of the export and the app data', value: rawMs }, undefined, `export ${ms(exportMs)}, core archive ${ms(coreArchiveMs)}, app archive ${ms(archiveMs - coreArchiveMs)}`),
        timeRow('archive alone (the export already written)', archiveMs, { label: 'tar -czf of the same files', value: rawMs }),
        timeRow('restore: read + extract + rebuild the log', restoreMs, { label: 'tar -xzf of the baseline archive', value: rawRestoreMs }, undefined, `core part ${ms(extractedMs)}, app part ${ms(appExtractMs)}, log rebuilt from the export ${ms(restoreMs - extractedMs - appExtractMs)}`),
        keys,
      ],
      notes: [
        `export file ${num(manifest.bytes / 1e6, 1)} MB (${num(manifest.entries, 0)} entries); backup file ${num(finished.size / 1e6, 1)} MB, tar.gz ${num(rawBytes / 1e6, 1)} MB`,
        'both gzip at level 6; the backup writes each part as a tar inside the outer tar (two tar layers, PAX headers) and hashes nothing beyond the export\'s own SHA-256',
      ],
    };
  } finally {
    await removeDir(dir);
  }
}

if (isMain(import.meta.url)) await runAlone(run);
