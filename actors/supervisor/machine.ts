import { readFile } from 'node:fs/promises';
import { arch as nodeArch, hostname } from 'node:os';

/**
 * Facts about the machine the supervisor runs on, as the original names them: its architecture
 * (`amd64`, `aarch64`...), a machine name (`generic-x86-64`), the machine id and the operating
 * system's name. Hearth runs on a plain host, not on an OS of its own.
 */

const ARCHES: Record<string, string> = { x64: 'amd64', arm64: 'aarch64', arm: 'armv7', ia32: 'i386' };
const MACHINES: Record<string, string> = { amd64: 'generic-x86-64', aarch64: 'generic-aarch64', armv7: 'qemuarm', i386: 'qemux86' };

/** The original's architecture name of a Node `process.arch`. */
export function archOf(node: string = nodeArch()): string {
  return ARCHES[node] ?? node;
}

/** The machine name the channel document's `core` map is keyed by. */
export function machineOf(arch: string = archOf()): string {
  return MACHINES[arch] ?? `generic-${arch}`;
}

/** `/etc/machine-id`, or null where there is none. */
export async function machineId(file = '/etc/machine-id'): Promise<string | null> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.trim() || null;
}

/** The operating system's pretty name (`Debian GNU/Linux 12 (bookworm)`) from os-release, or null. */
export async function operatingSystem(files = ['/etc/os-release', '/usr/lib/os-release']): Promise<string | null> {
  for (const f of files) {
    const text = await readFile(f, 'utf8').catch(() => '');
    const m = /^PRETTY_NAME=(.*)$/m.exec(text);
    if (m) return m[1].trim().replace(/^(["'])(.*)\1$/, '$2') || null;
  }
  return null;
}

export { hostname };
