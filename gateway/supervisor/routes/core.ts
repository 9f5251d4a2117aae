import type { SupervisorApi } from '../api.ts';
import type { SupervisorDeps } from '../deps.ts';
import { boolean, int, maybe, matching, schema, str, validate } from '../../../actors/supervisor/validate.ts';
import { SupervisorError } from '../../../actors/supervisor/errors.ts';
import { CoreRuntime } from '../../../actors/supervisor/core/runtime.ts';

/**
 * The core runtime's routes on `/core` (v1 also at the legacy `/homeassistant`; v2 only `/core`):
 * info, stats, options, start/stop/restart/rebuild, update and the configuration check.
 */

/** An image name without tag: lower-case registry and path parts (`{machine}` templates allowed). */
const DOCKER_IMAGE = /^([a-z0-9][a-z0-9.-]*(:[0-9]+)?\/)*[a-z0-9{][a-z0-9.\-_{}]*(\/[a-z0-9{][a-z0-9.\-_{}]*)*$/;
const VERSION_TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

const OPTIONS = schema({
  boot: boolean,
  image: maybe(matching(DOCKER_IMAGE)),
  port: int(1, 65535),
  ssl: boolean,
  watchdog: boolean,
  refresh_token: maybe(str),
  audio_output: maybe(str),
  audio_input: maybe(str),
  backups_exclude_database: boolean,
  duplicate_log_file: boolean,
});
const UPDATE = schema({ version: matching(VERSION_TAG), backup: boolean, background: boolean });
const RESTART = schema({ safe_mode: boolean, force: boolean });
const STOP = schema({ force: boolean });

export function registerCoreRoutes(api: SupervisorApi, deps: SupervisorDeps): void {
  const runtime = (): CoreRuntime => {
    if (deps.core instanceof CoreRuntime) return deps.core;
    throw new SupervisorError('The core runtime is not available on this supervisor');
  };
  const at = (path: string) => ({ v1Aliases: [`/homeassistant${path}`] });

  api.get('/core/info', () => runtime().info(), at('/info'));

  api.get('/core/stats', () => runtime().stats(), at('/stats'));

  api.post(
    '/core/options',
    async (call) => {
      const body = validate(call.body(), OPTIONS);
      await runtime().setOptions(body, deps.context());
      return {};
    },
    at('/options'),
  );

  api.post(
    '/core/start',
    async () => {
      await runtime().start(deps.context()).done;
      return {};
    },
    at('/start'),
  );

  api.post(
    '/core/stop',
    async (call) => {
      const body = validate(call.body(), STOP);
      await runtime().stop(deps.context(), { force: body.force });
      return {};
    },
    at('/stop'),
  );

  api.post(
    '/core/restart',
    async (call) => {
      const body = validate(call.body(), RESTART);
      await runtime().restart(deps.context(), { safeMode: body.safe_mode, force: body.force });
      return {};
    },
    at('/restart'),
  );

  api.post(
    '/core/rebuild',
    async (call) => {
      const body = validate(call.body(), RESTART);
      await runtime().rebuild(deps.context(), { safeMode: body.safe_mode, force: body.force });
      return {};
    },
    at('/rebuild'),
  );

  api.post(
    '/core/update',
    async (call) => {
      const body = validate(call.body(), UPDATE);
      return (await runtime().update(deps.context(), body)) ?? {};
    },
    at('/update'),
  );

  api.post(
    '/core/check',
    async () => {
      await runtime().check();
      return {};
    },
    at('/check'),
  );
}
