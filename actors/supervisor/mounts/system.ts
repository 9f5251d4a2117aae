import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/**
 * The host's mount table, changed with util-linux's `mount`/`umount` (the original asks systemd
 * over D-Bus for transient `.mount` units; Hearth runs where there is no systemd to ask).
 * Arguments go to execFile, never a shell; positional arguments come after `--` so a server
 * name cannot be read as an option.
 */

/** A failed mount command: `message` is what the command (or the kernel through it) said. */
export class MountCommandError extends Error {}

export interface MountSystem {
  /** Whether this process may mount at all (root with CAP_SYS_ADMIN). */
  available(): Promise<boolean>;
  mount(type: string, source: string, target: string, options: string[]): Promise<void>;
  bind(source: string, target: string): Promise<void>;
  unmount(target: string): Promise<void>;
  /** Whether `target` is a mount point now. */
  mounted(target: string): Promise<boolean>;
}

/** CAP_SYS_ADMIN's bit in /proc/self/status CapEff. */
const CAP_SYS_ADMIN = 21n;

export class HostMounts implements MountSystem {
  /** `timeoutMs`: a mount that hangs this long (a server that never answers) is killed and failed. */
  constructor(private readonly timeoutMs = 30_000) {}

  async available(): Promise<boolean> {
    try {
      const status = await readFile('/proc/self/status', 'utf8');
      const cap = /^CapEff:\s*([0-9a-f]+)$/m.exec(status)?.[1];
      return cap !== undefined && ((BigInt(`0x${cap}`) >> CAP_SYS_ADMIN) & 1n) === 1n;
    } catch {
      return false;
    }
  }

  mount(type: string, source: string, target: string, options: string[]): Promise<void> {
    return this.run('mount', ['-t', type, ...(options.length ? ['-o', options.join(',')] : []), '--', source, target]);
  }

  bind(source: string, target: string): Promise<void> {
    return this.run('mount', ['--bind', '--', source, target]);
  }

  // lazy: a soft network mount whose server went away could block a plain umount for minutes
  unmount(target: string): Promise<void> {
    return this.run('umount', ['-l', '--', target]);
  }

  async mounted(target: string): Promise<boolean> {
    const table = await readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
    for (const line of table.split('\n')) {
      const point = line.split(' ')[4];
      if (point !== undefined && unescapeMountinfo(point) === target) return true;
    }
    return false;
  }

  private run(command: string, args: string[]): Promise<void> {
    return new Promise((resolve, reject) => {
      execFile(command, args, { timeout: this.timeoutMs, killSignal: 'SIGKILL', env: { ...process.env, LC_ALL: 'C' } }, (err, stdout, stderr) => {
        if (!err) return resolve();
        const said = `${stderr}`.trim() || `${stdout}`.trim();
        const e = err as NodeJS.ErrnoException & { killed?: boolean; signal?: string };
        if (e.code === 'ENOENT') return reject(new MountCommandError(`${command} is not installed on this host`));
        if (e.killed || e.signal === 'SIGKILL') return reject(new MountCommandError(`${command} did not finish within ${Math.round(this.timeoutMs / 1000)} s${said ? `: ${said}` : ''}`));
        // the hint about dmesg tells an API client nothing it can act on
        reject(new MountCommandError(said.replace(/\s*dmesg\(1\) may have more information after failed mount system call\.?/g, '').trim() || `${command} failed (exit ${e.code})`));
      });
    });
  }
}

/** mountinfo writes space, tab, newline and backslash as octal escapes. */
function unescapeMountinfo(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)));
}
