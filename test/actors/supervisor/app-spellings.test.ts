// App payloads in both spellings: the original's clients read `homeassistant`, `hassio_api`,
// `hassio_role` and `homeassistant_api`; the contract names them `core`, `supervisor_api`,
// `supervisor_role` (whose role `homeassistant` is `core`) and `core_api`. Every answer that
// carries one carries the other beside it, on both trees, for the store and installed apps.
import t, { type Test } from 'tap';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestSupervisorWithV2 } from '../../helpers/supervisor.ts';
import { appPrefix } from '../../helpers/apps.ts';
import { BUILTIN_REPOSITORY_DIR } from '../../../actors/supervisor/apps/store.ts';

const LOCAL = 'local_hearth_stdin_logger';
const ACCESS = 'homeassistant: "2024.1.0"\nhassio_api: true\nhassio_role: homeassistant\nhomeassistant_api: true\n';

/** The keys of the pairs present in an answer, and that each pair agrees. */
function pairs(t: Test, body: Record<string, unknown>, what: string, full: boolean) {
  const expected: Array<[string, string, unknown, unknown]> = [['homeassistant', 'core', '2024.1.0', '2024.1.0']];
  if (full) expected.push(['hassio_api', 'supervisor_api', true, true], ['hassio_role', 'supervisor_role', 'homeassistant', 'core'], ['homeassistant_api', 'core_api', true, true]);
  for (const [original, contract, value, contractValue] of expected) {
    t.same([body[original], body[contract]], [value, contractValue], `${what}: ${original} and ${contract}`);
    const keys = Object.keys(body);
    t.equal(keys.indexOf(contract), keys.indexOf(original) + 1, `${what}: ${contract} right after ${original}`);
  }
}

t.test('the store and an installed app, on v1 and v2', async (t) => {
  const s = await startTestSupervisorWithV2(t, { appContainerPrefix: appPrefix(t, 'spellings'), bootApps: false });
  const dir = join(s.dataDir, 'apps', 'local', 'hearth_stdin_logger');
  await cp(join(BUILTIN_REPOSITORY_DIR, 'hearth_stdin_logger'), dir, { recursive: true });
  await writeFile(join(dir, 'config.yaml'), (await readFile(join(dir, 'config.yaml'), 'utf8')) + ACCESS);
  t.equal((await s.json('POST', '/store/reload')).status, 200);

  const storeEntry = async (path: string, key: string) => (await s.json('GET', path)).body.data[key].find((a: { slug: string }) => a.slug === LOCAL);
  pairs(t, await storeEntry('/store/addons', 'addons'), 'GET /store/addons', false);
  pairs(t, await storeEntry('/v2/store/apps', 'apps'), 'GET /v2/store/apps', false);
  pairs(t, (await s.json('GET', `/store/addons/${LOCAL}`)).body.data, 'GET /store/addons/<app>', true);
  pairs(t, (await s.json('GET', `/v2/store/apps/${LOCAL}`)).body.data, 'GET /v2/store/apps/<app>', true);
  pairs(t, (await s.json('GET', `/addons/${LOCAL}/info`)).body.data, 'GET /addons/<app>/info of a store app', true);

  t.equal((await s.json('POST', `/store/addons/${LOCAL}/install`)).status, 200);
  pairs(t, (await s.json('GET', '/addons')).body.data.addons[0], 'GET /addons', false);
  pairs(t, (await s.json('GET', '/v2/apps')).body.data.apps[0], 'GET /v2/apps', false);
  pairs(t, (await s.json('GET', `/addons/${LOCAL}/info`)).body.data, 'GET /addons/<app>/info', true);
  pairs(t, (await s.json('GET', `/v2/apps/${LOCAL}/info`)).body.data, 'GET /v2/apps/<app>/info', true);
  pairs(t, (await s.json('GET', `/store/addons/${LOCAL}`)).body.data, 'GET /store/addons/<app> once installed', true);
});
