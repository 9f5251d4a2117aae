import { parseArgs } from 'node:util';
import type { Supervisor } from './supervisor-instance.ts';
import { guardProcess, orderlyExit } from './guard.ts';
import { portFrom } from './args.ts';

const USAGE = `usage: hearth supervisor [--port P] [--data DIR] [--docker-socket PATH] [--host H] [--updater URL|PATH] [--repositories DIR[,DIR]]
  --port            the supervisor's API (env HEARTH_SUPERVISOR_PORT; default 1703)
  --data            its data: log, admin.token, the core's data in core/ (env HEARTH_SUPERVISOR_DATA; default ./supervisor-data)
  --docker-socket   the container engine (env DOCKER_SOCKET; default /var/run/docker.sock)
  --updater         the channel document of the latest versions: a JSON file or an http(s) URL, {channel}
                    standing for stable/beta/dev (env HEARTH_SUPERVISOR_UPDATER; kept for later starts;
                    default (or the word default) the documents shipped with Hearth, which report no update)
  --repositories    more app repository directories for the store, comma-separated (env HEARTH_SUPERVISOR_REPOSITORIES;
                    the built-in repository and <data>/apps/local are always read)
  --connectivity-url  what the internet check asks (HEAD; env HEARTH_SUPERVISOR_CONNECTIVITY_URL;
                    default https://checkonline.home-assistant.io/online.txt; off turns the check off)
  hearth supervisor tokens <list|add|revoke>   tokens with a role, while it is stopped (--help)
The operator's token is written to <data>/admin.token on first start:
  curl -H "Authorization: Bearer $(cat <data>/admin.token)" http://localhost:1703/core/info`;

/** `hearth supervisor`: starts the supervisor and keeps it until SIGINT/SIGTERM. */
export async function supervisorMain(argv: string[]): Promise<void> {
  if (argv[0] === 'tokens') process.exit(await (await import('./supervisor-tokens.ts')).tokensMain(argv.slice(1)));
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', short: 'p' },
      data: { type: 'string', short: 'd' },
      host: { type: 'string' },
      'docker-socket': { type: 'string' },
      updater: { type: 'string' },
      repositories: { type: 'string' },
      'connectivity-url': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = portFrom(values.port ?? process.env.HEARTH_SUPERVISOR_PORT ?? '1703');
  const dataDir = values.data ?? process.env.HEARTH_SUPERVISOR_DATA ?? './supervisor-data';
  const host = values.host ?? '0.0.0.0';
  const dockerSocket = values['docker-socket'] ?? process.env.DOCKER_SOCKET ?? '/var/run/docker.sock';
  const updaterUrl = values.updater || process.env.HEARTH_SUPERVISOR_UPDATER || undefined;
  const appRepositories = (values.repositories ?? process.env.HEARTH_SUPERVISOR_REPOSITORIES ?? '').split(',').map((d) => d.trim()).filter(Boolean);
  const connectivity = values['connectivity-url'] || process.env.HEARTH_SUPERVISOR_CONNECTIVITY_URL || undefined;
  const connectivityUrl = connectivity === 'off' ? null : connectivity;
  const { startSupervisor } = await import('./supervisor-instance.ts');
  let instance: Supervisor | undefined;
  const exit = orderlyExit('Supervisor', () => instance?.stop());
  // into the supervisor's own log (its file, which /supervisor/logs serves) once it runs
  guardProcess({ logLine: (line, level) => (instance ? instance.logs.get('hearth.guard')[level](line) : console.error(line)), stop: (code) => void exit(code) });
  instance = await startSupervisor({ dataDir, port, host, dockerSocket, updaterUrl, appRepositories, connectivityUrl, bootPlugins: true, onStop: () => void exit(0) });
  console.log(`Supervisor listening on http://${host === '0.0.0.0' ? 'localhost' : host}:${instance.port} (data in ${instance.dataDir}; operator token in ${instance.dataDir}/admin.token)`);
}
