import { readFileSync } from 'node:fs';
import { HostsTable } from './hosts.ts';
import { Resolver } from './server.ts';
import { parseUpstream, type Upstream } from './upstream.ts';

/**
 * The dns plugin's resolver, run alone in its container (`node /plugin/resolver.cjs`: these
 * modules and dns-packet bundled into one file by images.ts). It reads `/config/hosts` (the
 * names it answers, kept current by the supervisor) and `/config/resolver.json` (the upstreams,
 * read at start only: a change of options restarts the plugin).
 */

const CONFIG_DIR = process.env.HEARTH_DNS_CONFIG ?? '/config';
const PORT = Number(process.env.HEARTH_DNS_PORT ?? 53);

const logLine = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);

function readUpstreams(): Upstream[] {
  let listed: unknown[];
  try {
    const raw = JSON.parse(readFileSync(`${CONFIG_DIR}/resolver.json`, 'utf8'));
    listed = Array.isArray(raw.upstreams) ? raw.upstreams : [];
  } catch (err) {
    logLine(`no usable ${CONFIG_DIR}/resolver.json (${(err as Error).message}): nothing is forwarded`);
    return [];
  }
  const out: Upstream[] = [];
  for (const item of listed) {
    const upstream = typeof item === 'string' ? parseUpstream(item) : null;
    if (upstream) out.push(upstream);
    else logLine(`upstream ${JSON.stringify(item)} is not an address: left out`);
  }
  return out;
}

async function main(): Promise<void> {
  const upstreams = readUpstreams();
  const hosts = new HostsTable(`${CONFIG_DIR}/hosts`, logLine);
  hosts.current();
  const resolver = new Resolver({ port: PORT, hosts, upstreams, logLine: logLine });
  await resolver.listen();
  logLine(`resolver listening on udp and tcp port ${PORT}, forwarding to ${upstreams.map((u) => `${u.host}:${u.port}`).join(', ') || 'nobody'}`);
  process.on('SIGTERM', () => {
    logLine('resolver stopping');
    resolver.close();
    process.exit(0);
  });
}

main().catch((err) => {
  logLine(`resolver failed: ${(err as Error).message}`);
  process.exit(1);
});
