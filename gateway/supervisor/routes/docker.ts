import type { SupervisorApi } from '../api.ts';
import type { Context } from '../../../store/types.ts';
import type { Logs } from '../../../actors/logging/logs.ts';
import type { Settings } from '../../../actors/supervisor/settings.ts';
import type { Engine } from '../../../actors/supervisor/docker/engine.ts';
import type { Resolution } from '../../../actors/supervisor/resolution/types.ts';
import { validate, validateField, boolean, int, maybe, str, required, dict, schema } from '../../../actors/supervisor/validate.ts';
import { pyRepr } from '../../../machines/python/repr.ts';
import { SupervisorError, notFound } from '../../../actors/supervisor/errors.ts';
import { DockerConfig, REGISTRY_HOSTNAME, type RegistryCredentials } from '../../../actors/supervisor/docker/config.ts';

/**
 * The container engine's settings (supervisor-wire §4.9): its version and drivers, IPv6 and MTU
 * of the supervisor's network (applied when the host restarts: a `reboot_required` issue), and
 * registry credentials (passwords never shown).
 */

const OPTIONS = schema({ enable_ipv6: maybe(boolean), mtu: maybe(int(68, 65535)) });
const CREDENTIALS = schema({ username: required(str), password: required(str) });

/** The original's `reboot_required` issue with its `execute_reboot` suggestion. */
export async function rebootRequired(resolution: Resolution): Promise<void> {
  await resolution.addIssue({ type: 'reboot_required', context: 'system' }, [{ type: 'execute_reboot', context: 'system' }]);
}

function checkRegistries(body: Record<string, unknown>): Record<string, RegistryCredentials> {
  const out: Record<string, RegistryCredentials> = {};
  for (const [host, value] of Object.entries(body)) {
    if (!REGISTRY_HOSTNAME.test(host)) throw new SupervisorError(`does not match regular expression ${REGISTRY_HOSTNAME.source} for dictionary key @ data[${pyRepr(host)}]. Got ${pyRepr(host)}`);
    const entry = validateField(host, value, dict);
    try {
      const creds = validate(entry, CREDENTIALS);
      out[host] = { username: creds.username as string, password: creds.password as string };
    } catch (err) {
      // the nested key's path, as the original words it: data['ghcr.io']['username']
      if (err instanceof SupervisorError) throw new SupervisorError(err.message.replace("@ data[", `@ data[${pyRepr(host)}][`));
      throw err;
    }
  }
  return out;
}

/** What the container engine's routes use. */
export interface DockerRouteDeps {
  engine: Engine;
  /** where the engine's options and registries are kept */
  settings: Settings;
  /** told when a change needs a reboot */
  resolution: Resolution;
  logs: Logs;
  context(): Context;
}

/** Registers the container engine's routes. */
export function registerDockerRoutes(api: SupervisorApi, deps: DockerRouteDeps): void {
  const config = new DockerConfig(deps.settings);
  const logger = deps.logs.get('hearth.supervisor.docker');

  api.get('/docker/info', async () => {
    const engine = await deps.engine.info().catch((err: Error) => {
      throw new SupervisorError(`No container engine answers at ${deps.engine.socketPath}: ${err.message}`);
    });
    const c = config.get();
    return {
      version: engine.version,
      enable_ipv6: c.enable_ipv6,
      mtu: c.mtu,
      storage: engine.storageDriver,
      logging: engine.loggingDriver,
      registries: config.registries(),
    };
  });

  api.post('/docker/options', async (call) => {
    const body = validate(call.body(), OPTIONS);
    if (await config.setOptions(body, deps.context())) {
      logger.info('Host system reboot required to apply Docker configuration changes');
      await rebootRequired(deps.resolution);
    }
  });

  api.get('/docker/registries', () => ({ registries: config.registries() }));

  api.post('/docker/registries', async (call) => {
    await config.addRegistries(checkRegistries(call.body()), deps.context());
  });

  api.delete('/docker/registries/:hostname', async (call) => {
    const hostname = call.params.hostname;
    if (!(await config.removeRegistry(hostname, deps.context()))) throw notFound(`Hostname ${hostname} does not exist in registries`);
  });

  // the original migrates through its OS's agent; Hearth runs on a plain host, so never (checked before the body)
  api.post('/docker/migrate-storage-driver', () => {
    throw notFound('Home Assistant OS 17.0 or newer required for Docker storage driver migration');
  });
}
