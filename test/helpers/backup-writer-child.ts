// A backup writer in a process of its own, for the crash test: writes Core's part of a backup,
// says so on stdout, then waits mid-backup to be killed. argv: <backup path> <config dir>.
import { BackupWriter } from '../../actors/supervisor/backups/archive/writer.ts';

const [path, configDir] = process.argv.slice(2);
const writer = await BackupWriter.create({ path, compressed: true });
await writer.addCore({ version: '2026.5.0', settings: {}, configDir, excludeDatabase: false });
process.stdout.write('core written\n');
setInterval(() => {}, 60_000);
