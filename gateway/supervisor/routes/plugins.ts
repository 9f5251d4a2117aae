import type { SupervisorApi } from '../api.ts';
import type { Context } from '../../../store/types.ts';
import type { Engine } from '../../../actors/supervisor/docker/engine.ts';
import { anything, boolean, float, int, list, required, schema, str, validate, validateField } from '../../../actors/supervisor/validate.ts';
import { pyRepr } from '../../../machines/python/repr.ts';
import { SupervisorError } from '../../../actors/supervisor/errors.ts';
import { ContainerLogSource } from '../../../actors/supervisor/logs/container.ts';
import type { Plugins } from '../../../actors/supervisor/plugins/plugins.ts';
import type { PluginName } from '../../../actors/supervisor/plugins/specs.ts';
import { registerLogRoutes } from './logs.ts';

/**
 * The plugins' routes (supervisor-api §4.7): info, stats and update of each; restart of audio,
 * dns and multicast; the dns plugin's options and reset; the audio plugin's sound controls,
 * which a host without a sound server refuses; the logs of audio, dns and multicast.
 */

const UPDATE = schema({ version: str });
const MAX_DNS_SERVERS = 8;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*$/;

/** The reason a DNS server is refused, as the original words it; null when it is `dns://<IPv4>`. */
export function dnsServerProblem(url: string): string | null {
  if (!url.toLowerCase().startsWith('dns://')) return "Doesn't start with dns://";
  const address = url.slice(6);
  if (IPV4.test(address)) return null;
  if (IPV6.test(address) && address.includes(':')) return `Only IPv4 is working for DNS: ${url}`;
  return `Invalid DNS URL: ${url}`;
}

const SERVERS = list(str);

/** `servers`: at most 8 strings, each `dns://<IPv4>`; a failure names the item (`data['servers'][1]`). */
function checkServers(value: unknown): string[] {
  const servers = validateField('servers', value, SERVERS);
  if (servers.length > MAX_DNS_SERVERS) throw new SupervisorError(`length of value must be at most ${MAX_DNS_SERVERS} @ data['servers']. Got ${pyRepr(value)}`);
  servers.forEach((s, i) => {
    const problem = dnsServerProblem(s);
    if (problem) throw new SupervisorError(`${problem} @ data['servers'][${i}]. Got ${pyRepr(s)}`);
  });
  return servers;
}

// the servers are checked by checkServers, after the body's other keys
const DNS_OPTIONS = schema({ servers: anything, fallback: boolean });

const VOLUME = schema({ index: required(int()), volume: required(float) });
const MUTE = schema({ index: required(int()), active: required(boolean) });
const DEFAULT = schema({ name: required(str) });
const PROFILE = schema({ card: required(str), name: required(str) });

/** What the plugins' routes use. */
export interface PluginRouteDeps {
  plugins: Plugins;
  /** the plugins' containers, whose logs are read */
  engine: Engine;
  context(): Context;
}

/** Registers the plugins' routes. */
export function registerPluginRoutes(api: SupervisorApi, deps: PluginRouteDeps): void {
  const { plugins } = deps;
  const context = () => deps.context();

  for (const name of ['dns', 'audio', 'cli', 'observer', 'multicast'] as PluginName[]) {
    const plugin = plugins.get(name);
    api.get(`/${name}/stats`, () => plugin.stats());
    api.post(`/${name}/update`, async (call) => {
      const body = validate(call.body(), UPDATE);
      await plugin.update(context(), body.version);
      return {};
    });
  }

  api.get('/dns/info', () => plugins.dns.info());
  api.get('/cli/info', () => plugins.cli.versionInfo());
  api.get('/multicast/info', () => plugins.multicast.versionInfo());
  api.get('/observer/info', () => plugins.observerInfo());
  api.get('/audio/info', () => plugins.audioInfo());

  for (const name of ['dns', 'audio', 'multicast'] as PluginName[]) {
    api.post(`/${name}/restart`, async () => {
      await plugins.get(name).restart(context());
      return {};
    });
    registerLogRoutes(
      api,
      `/${name}`,
      new ContainerLogSource({
        docker: deps.engine.docker,
        name: plugins.get(name).containerName,
        missing: () => new SupervisorError(`The ${name} plugin is not installed: there is no container ${plugins.get(name).containerName}`, { status: 400, plain: true }),
      }),
      { verbose: true },
    );
  }

  api.post('/dns/options', async (call) => {
    const body = validate(call.body(), DNS_OPTIONS);
    const servers = body.servers === undefined ? undefined : checkServers(body.servers);
    await plugins.dns.setOptions({ servers, fallback: body.fallback }, context());
    return {};
  });
  api.post('/dns/reset', async () => {
    await plugins.dns.reset(context());
    return {};
  });

  // the sound state is read from the sound server: there is none to read again
  api.post('/audio/reload', () => ({}));
  const noSoundServer = (what: string) => new SupervisorError(`No sound server runs on this host: cannot ${what}`);
  const source = (value: string) => {
    if (value !== 'input' && value !== 'output') throw new SupervisorError(`Unknown audio source ${value}: it is input or output`, { status: 404 });
    return value;
  };
  for (const app of [false, true]) {
    const suffix = app ? '/application' : '';
    const target = app ? 'application stream' : 'stream';
    api.post(`/audio/volume/:source${suffix}`, (call) => {
      const s = source(call.params.source);
      const body = validate(call.body(), VOLUME);
      throw noSoundServer(`set the volume of ${s} ${target} ${body.index}`);
    });
    api.post(`/audio/mute/:source${suffix}`, (call) => {
      const s = source(call.params.source);
      const body = validate(call.body(), MUTE);
      throw noSoundServer(`${body.active ? 'mute' : 'unmute'} ${s} ${target} ${body.index}`);
    });
  }
  api.post('/audio/default/:source', (call) => {
    const s = source(call.params.source);
    const body = validate(call.body(), DEFAULT);
    throw noSoundServer(`make ${body.name} the default ${s}`);
  });
  api.post('/audio/profile', (call) => {
    const body = validate(call.body(), PROFILE);
    throw noSoundServer(`set profile ${body.name} on card ${body.card}`);
  });
}
