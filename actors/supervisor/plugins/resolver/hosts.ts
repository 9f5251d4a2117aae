import { readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';

/**
 * The names the resolver answers itself: the hosts file the supervisor writes (the apps'
 * hostnames, `supervisor`, `homeassistant`, the plugins, each also under `local.hass.io`),
 * read again whenever its size or time changes, since apps come and go while it runs.
 */

export const LOCAL_DOMAIN = 'local.hass.io';

/** What a local name resolves to: its addresses, or 'nxdomain' for an unknown name of the local domain. */
export type LocalAnswer = { addresses: string[] } | 'nxdomain';

export class HostsTable {
  private table = new Map<string, string[]>();
  private stamp = '';

  constructor(
    private readonly file: string,
    private readonly logLine: (line: string) => void,
  ) {}

  /** The local answer for `name`, or null when the name is not this resolver's to answer. */
  lookup(name: string): LocalAnswer | null {
    const table = this.current();
    const key = name.toLowerCase().replace(/\.$/, '');
    const found = table.get(key);
    if (found) return { addresses: found };
    if (key === LOCAL_DOMAIN || key.endsWith(`.${LOCAL_DOMAIN}`)) {
      const short = table.get(key.slice(0, -LOCAL_DOMAIN.length - 1));
      return short ? { addresses: short } : 'nxdomain';
    }
    return null;
  }

  /** Reads the file again when it changed; keeps the last table while it cannot be read. */
  current(): Map<string, string[]> {
    let stamp: string;
    let text: string;
    try {
      const st = statSync(this.file);
      stamp = `${st.mtimeMs}:${st.size}`;
      if (stamp === this.stamp) return this.table;
      text = readFileSync(this.file, 'utf8');
    } catch {
      return this.table;
    }
    const next = new Map<string, string[]>();
    for (const line of text.split('\n')) {
      const [address, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
      if (!address || !isIP(address)) continue;
      for (const name of names) {
        const key = name.toLowerCase().replace(/\.$/, '');
        next.set(key, [...(next.get(key) ?? []), address]);
      }
    }
    this.table = next;
    this.stamp = stamp;
    this.logLine(`hosts: ${next.size} names`);
    return next;
  }
}
