import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MountCredentials } from './types.ts';
import { childPath } from '../paths.ts';

/**
 * CIFS credentials, one file per mount in `<data>/.mounts_credentials/<name>` (owner-only), in
 * the format mount.cifs reads with `credentials=<file>`, as the original keeps them. Keeping
 * them out of the log means no record, replay, export or answer can ever show them; the price
 * is that the log alone does not restore them (a mount without its file mounts as a guest).
 */
export class CredentialFiles {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, '.mounts_credentials');
  }

  path(name: string): string {
    return childPath(this.dir, name);
  }

  async write(name: string, credentials: MountCredentials): Promise<string> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700);
    const file = this.path(name);
    await writeFile(file, `username=${credentials.username}\npassword=${credentials.password}\n`, { mode: 0o600 });
    await chmod(file, 0o600);
    return file;
  }

  async read(name: string): Promise<MountCredentials | undefined> {
    const text = await readFile(this.path(name), 'utf8').catch(() => undefined);
    if (text === undefined) return undefined;
    const value = (key: string) => text.split('\n').find((l) => l.startsWith(`${key}=`))?.slice(key.length + 1);
    const username = value('username');
    const password = value('password');
    return username !== undefined && password !== undefined ? { username, password } : undefined;
  }

  async exists(name: string): Promise<boolean> {
    return (await this.read(name)) !== undefined;
  }

  async remove(name: string): Promise<void> {
    await rm(this.path(name), { force: true });
  }
}
