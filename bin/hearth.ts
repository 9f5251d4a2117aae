import { parseArgs } from 'node:util';
import type { Hearth } from './instance.ts';
import { guardProcess, orderlyExit } from './guard.ts';
import { portFrom } from './args.ts';

const USAGE = `usage:
  hearth [serve] [--port P] [--data DIR]     start Hearth (env HEARTH_PORT, HEARTH_DATA; default 1702, ./data)
         [--log-format text|json]           stdout as readable lines or JSON lines (env HEARTH_LOG_FORMAT; default text)
         [--log-file PATH | --no-log-file]  the log file GET /api/error_log serves (default DIR/hearth.log)
  hearth replay [--data DIR] [options]       print the event log (hearth replay --help)
  hearth check-config [--data DIR]            check DIR/configuration.yaml: exits 1 printing the problem
  hearth export status [--data DIR] [--json] the NATS exporter's position, the log's last seq, the lag
  hearth auth <list|add|validate|change_password> [--data DIR]
                                             manage users while Hearth is stopped (hearth auth --help)
  hearth replica --nats URL [--stream hearth] [--port P] [--data DIR]
                                             a read replica of a primary that exports to NATS
                                             (default 1704, ./replica-data; hearth replica --help)
  hearth supervisor [--port P] [--data DIR] [--docker-socket PATH]
                                             start the supervisor (default 1703, ./supervisor-data,
                                             /var/run/docker.sock): it runs the core in a container`;

async function serve(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', short: 'p' },
      data: { type: 'string', short: 'd' },
      host: { type: 'string' },
      'log-format': { type: 'string' },
      'log-file': { type: 'string' },
      'no-log-file': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = portFrom(values.port ?? process.env.HEARTH_PORT ?? '1702');
  const dataDir = values.data ?? process.env.HEARTH_DATA ?? './data';
  const host = values.host ?? process.env.HEARTH_HOST ?? '0.0.0.0';
  const logFormat = values['log-format'] ?? process.env.HEARTH_LOG_FORMAT ?? 'text';
  if (logFormat !== 'text' && logFormat !== 'json') throw new Error(`invalid log format ${JSON.stringify(logFormat)}: give text or json`);
  if (values['no-log-file'] && values['log-file'] !== undefined) throw new Error('give --log-file or --no-log-file, not both');
  const logFile = values['no-log-file'] ? false : values['log-file'];

  // loaded only to serve, so `hearth replay` starts fast
  const { startHearth } = await import('./instance.ts');
  let instance: Hearth | undefined;
  const exit = orderlyExit('Hearth', () => instance?.stop());
  const boot = async () => {
    instance = await startHearth({
      dataDir,
      port,
      host,
      logFormat,
      logFile,
      onStop: () => void exit(0),
      onRestart: async () => {
        console.log('Hearth restarting');
        await instance!.stop();
        await boot();
      },
    });
    console.log(
      `Hearth listening on http://${host === '0.0.0.0' ? 'localhost' : host}:${instance.port} (data in ${instance.dataDir}; restored ${instance.restore.records} events in ${instance.restore.ms.toFixed(0)} ms)`,
    );
  };
  // into the running instance's log (its file, its system log) when there is one
  const guardLogLine = (line: string, level: 'critical' | 'error') => (instance ? instance.logs.get('hearth.guard')[level](line) : console.error(line));
  guardProcess({ logLine: guardLogLine, stop: (code) => void exit(code) });
  await boot();
}

/** `hearth check-config`: loads the configuration as a start would; 0 when it loads, 1 with the problem. */
async function checkConfig(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { data: { type: 'string', short: 'd' } } });
  const dataDir = values.data ?? process.env.HEARTH_DATA ?? './data';
  const { loadConfiguration } = await import('../actors/core/configuration.ts');
  try {
    await loadConfiguration(dataDir);
  } catch (err) {
    console.log(`Configuration invalid: ${(err as Error).message}`);
    return 1;
  }
  console.log(`Configuration valid: ${dataDir}/configuration.yaml`);
  return 0;
}

const [command, ...rest] = process.argv.slice(2);
try {
  if (command === 'replay') await (await import('./replay.ts')).replayMain(rest);
  else if (command === 'replica') await (await import('./replica.ts')).replicaMain(rest);
  else if (command === 'supervisor') await (await import('./supervisor.ts')).supervisorMain(rest);
  else if (command === 'check-config') process.exit(await checkConfig(rest));
  else if (command === 'export') process.exit(await (await import('./export-cli.ts')).exportMain(rest));
  else if (command === 'auth') process.exit(await (await import('./auth-cli.ts')).authMain(rest));
  else if (command === 'serve' || command === undefined || command.startsWith('-')) await serve(command === 'serve' ? rest : process.argv.slice(2));
  else {
    console.error(`unknown command ${JSON.stringify(command)}\n${USAGE}`);
    process.exit(2);
  }
} catch (err) {
  console.error(`hearth: ${(err as Error).message}`);
  process.exit(1);
}
