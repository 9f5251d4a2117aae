/** User and group names for tar headers, read from /etc/passwd and /etc/group as Python's tarfile looks them up. */
import { readFileSync } from 'node:fs';

let users: Map<number, string> | undefined;
let groups: Map<number, string> | undefined;

function table(path: string): Map<number, string> {
  const out = new Map<number, string>();
  try {
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      const [name, , id] = line.split(':');
      if (name && id !== undefined && /^\d+$/.test(id) && !out.has(Number(id))) out.set(Number(id), name);
    }
  } catch {
    // no table: the names stay empty, as tarfile leaves them without pwd/grp
  }
  return out;
}

export function userName(uid: number): string {
  users ??= table('/etc/passwd');
  return users.get(uid) ?? '';
}

export function groupName(gid: number): string {
  groups ??= table('/etc/group');
  return groups.get(gid) ?? '';
}
