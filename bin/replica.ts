import { parseArgs } from 'node:util';
import type { Replica } from './replica-instance.ts';
import { guardProcess, orderlyExit } from './guard.ts';
import { portFrom } from './args.ts';

const USAGE = `usage: hearth replica --nats URL [--stream NAME] [--port P] [--data DIR] [--host H] [--credentials FILE]
  --nats         a NATS server with JetStream (nats://host:4222); repeat it or separate with commas
                 for a cluster (env HEARTH_REPLICA_NATS)
  --stream       the JetStream stream the primary exports to (its recorder: export: nats: stream;
                 default hearth)
  --port         the replica's API (env HEARTH_REPLICA_PORT; default 1704)
  --data         the replica's own copy of the log (env HEARTH_REPLICA_DATA; default ./replica-data)
  --credentials  a NATS credentials file
A replica serves the read side of the API (GET /api/states, /api/history/period, /api/stream,
WebSocket get_states, subscribe_entities, subscribe_events, history) from the primary's log,
with the primary's users and tokens. Writes go to the primary: a replica refuses them.`;

/** `hearth replica`: follows a primary's exported log and serves its read side until SIGINT/SIGTERM. */
export async function replicaMain(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      nats: { type: 'string', multiple: true },
      stream: { type: 'string' },
      port: { type: 'string', short: 'p' },
      data: { type: 'string', short: 'd' },
      host: { type: 'string' },
      credentials: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const servers = (values.nats ?? [process.env.HEARTH_REPLICA_NATS ?? '']).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  if (servers.length === 0) throw new Error(`give the NATS server to follow: --nats nats://host:4222\n${USAGE}`);
  const stream = values.stream ?? 'hearth';
  if (!/^[A-Za-z0-9_-]+$/.test(stream)) throw new Error(`invalid stream name ${JSON.stringify(stream)}: letters, digits, _ and - only`);
  const port = portFrom(values.port ?? process.env.HEARTH_REPLICA_PORT ?? '1704');
  const dataDir = values.data ?? process.env.HEARTH_REPLICA_DATA ?? './replica-data';
  const host = values.host ?? '0.0.0.0';
  const { startReplica } = await import('./replica-instance.ts');
  let instance: Replica | undefined;
  const exit = orderlyExit('Replica', () => instance?.stop());
  guardProcess({ logLine: (line, level) => (instance ? instance.logs.get('hearth.guard')[level](line) : console.error(line)), stop: (code) => void exit(code) });
  instance = await startReplica({ nats: { servers, stream, credentials: values.credentials }, dataDir, port, host });
  const s = instance.status();
  console.log(`Replica listening on http://${host === '0.0.0.0' ? 'localhost' : host}:${instance.port} (stream ${stream} at ${servers.join(', ')}; data in ${instance.dataDir}; at seq ${s.seq})`);
}
