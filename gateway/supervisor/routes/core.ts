import type { SupervisorApi } from '../api.ts';
import type { Context } from '../../../store/types.ts';
import type { CoreRuntime } from '../../../actors/supervisor/core/runtime.ts';
import { boolean, int, maybe, matching, schema, str, validate } from '../../../actors/supervisor/validate.ts';
import { SupervisorError } from '../../../actors/supervisor/errors.ts';

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

/** What the core's routes use. */
export interface CoreRouteDeps {
  core: CoreRuntime;
  context(): Context;
}

/** Registers the core runtime's routes. */
export function registerCoreRoutes(api: SupervisorApi, deps: CoreRouteDeps): void {
  const at = (path: string) => ({ v1Aliases: [`/homeassistant${path}`] });

  api.get('/core/info', () => deps.core.info(), at('/info'));

  api.get('/core/stats', () => deps.core.stats(), at('/stats'));

  api.post(
    '/core/options',
    async (call) => {
      const body = validate(call.body(), OPTIONS);
      await deps.core.setOptions(body, deps.context());
      return {};
    },
    at('/options'),
  );

  api.post(
    '/core/start',
    async () => {
      await deps.core.start(deps.context()).done;
      return {};
    },
    at('/start'),
  );

  api.post(
    '/core/stop',
    async (call) => {
      const body = validate(call.body(), STOP);
      await deps.core.stop(deps.context(), { force: body.force });
      return {};
    },
    at('/stop'),
  );

  api.post(
    '/core/restart',
    async (call) => {
      const body = validate(call.body(), RESTART);
      await deps.core.restart(deps.context(), { safeMode: body.safe_mode, force: body.force });
      return {};
    },
    at('/restart'),
  );

  api.post(
    '/core/rebuild',
    async (call) => {
      const body = validate(call.body(), RESTART);
      await deps.core.rebuild(deps.context(), { safeMode: body.safe_mode, force: body.force });
      return {};
    },
    at('/rebuild'),
  );

  api.post(
    '/core/update',
    async (call) => {
      const body = validate(call.body(), UPDATE);
      return (await deps.core.update(deps.context(), body)) ?? {};
    },
    at('/update'),
  );

  api.post(
    '/core/check',
    async () => {
      await deps.core.check();
      return {};
    },
    at('/check'),
  );
}
