// The built-in apps' images, built on the real engine from their Dockerfiles on the base made from
// the host's busybox (nothing pulled), then run bare — no supervisor — to prove what each app does:
// the echo page (with the ingress user headers it is given) and its WebSocket echo, the stdin
// logger's lines, the Mosquitto app's broker (on a base holding the host's Mosquitto). Failures of
// a build are the original's errors; a base whose host program is missing names its package.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtemp, mkdir, writeFile, cp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Docker from 'dockerode';
import WebSocket from 'ws';
import { AppStore } from '../../../../actors/supervisor/apps/store.ts';
import { appImageName, buildAppImage, APP_BASE_IMAGE } from '../../../../actors/supervisor/apps/image.ts';
import { MOSQUITTO_BASE_IMAGE } from '../../../../actors/supervisor/apps/mosquitto-base.ts';
import { addHostPrograms } from '../../../../actors/supervisor/docker/host-files.ts';
import { SupervisorError } from '../../../../actors/supervisor/errors.ts';
import type { RepositoryApp } from '../../../../actors/supervisor/apps/repository.ts';
import { eventually } from '../../../helpers/wait.ts';

const docker = new Docker({ socketPath: '/var/run/docker.sock' });
const sh = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const quiet = { info() {}, warning() {} };

async function builtinApps(localDir?: string): Promise<AppStore> {
  const store = new AppStore({ localDir: localDir ?? (await mkdtemp(join(tmpdir(), 'hearth-local-apps-'))), logger: quiet, arch: 'amd64', machine: 'qemux86-64' });
  await store.reload();
  return store;
}

/** A container of the image, removed when the test ends; its address on the default bridge. */
async function runBare(t: { teardown(fn: () => unknown): void }, image: string, options: { stdin?: boolean; env?: string[] } = {}): Promise<{ name: string; ip: string }> {
  const name = `hearth_test_bare_${randomBytes(4).toString('hex')}`;
  const c = await docker.createContainer({ name, Image: image, Env: options.env, OpenStdin: options.stdin === true, StdinOnce: false, AttachStdin: options.stdin === true, Labels: { supervisor_managed: '' } });
  t.teardown(() => c.remove({ force: true }).catch(() => {}));
  await c.start();
  const info = await c.inspect();
  return { name, ip: (info.NetworkSettings as unknown as { IPAddress: string }).IPAddress };
}

const logsOf = (name: string) => execFileSync('sh', ['-c', `docker logs ${name} 2>&1`], { encoding: 'utf8' });

t.test('the echo app: its page shows the ingress user headers, its WebSocket echoes', async (t) => {
  const store = await builtinApps();
  const app = store.app('core_hearth_echo');
  const lines: string[] = [];
  const { ref } = await buildAppImage(docker, app, { arch: 'amd64', logLine: (l) => lines.push(l) });
  t.equal(ref, 'core/amd64-addon-hearth_echo:1.0.0', "the original's name for a locally built app");
  t.ok(sh('image', 'inspect', APP_BASE_IMAGE, '--format', '{{.Id}}'), 'the base was made on the engine');
  const labels = JSON.parse(sh('image', 'inspect', ref, '--format', '{{json .Config.Labels}}'));
  t.match(labels, { 'io.hass.type': 'app', 'io.hass.version': '1.0.0', 'io.hass.arch': 'amd64', 'io.hass.name': 'Echo' });
  t.same(await buildAppImage(docker, app, { arch: 'amd64' }), { ref, built: false }, 'an image already there is kept');

  const { ip } = await runBare(t, ref);
  const page = await eventually('the page', async () => {
    const res = await fetch(`http://${ip}:8099/`, { headers: { 'X-Remote-User-Id': 'abc123', 'X-Remote-User-Name': 'ada', 'X-Remote-User-Display-Name': 'Ada L', 'X-Ingress-Path': '/api/hassio_ingress/tok' }, signal: AbortSignal.timeout(3000) });
    return res.status === 200 ? { type: res.headers.get('content-type'), body: await res.text() } : undefined;
  });
  t.equal(page.type, 'text/html; charset=utf-8');
  t.match(page.body, '<span id="user-id">abc123</span> <span id="user-name">ada</span> (<span id="display-name">Ada L</span>)');
  t.match(page.body, '<span id="ingress-path">/api/hassio_ingress/tok</span>');

  const ws = new WebSocket(`ws://${ip}:8099/ws/`);
  await new Promise((ok, fail) => (ws.once('open', ok), ws.once('error', fail)));
  const echoes: string[] = [];
  ws.on('message', (d) => echoes.push(d.toString()));
  ws.send('hello hearth');
  ws.send('second message');
  await eventually('two echoes', async () => (echoes.length >= 2 ? true : undefined));
  t.same(echoes, ['hello hearth', 'second message'], 'each text frame comes back as it was sent');
  ws.close();
});

t.test('the stdin logger writes each line it reads', async (t) => {
  const store = await builtinApps();
  const { ref } = await buildAppImage(docker, store.app('core_hearth_stdin_logger'), { arch: 'amd64' });
  const { name } = await runBare(t, ref, { stdin: true });
  const c = docker.getContainer(name);
  const stream = (await c.attach({ stream: true, stdin: true, hijack: true })) as NodeJS.ReadWriteStream;
  stream.write('first line\nsecond line\n');
  await eventually('the lines in the log', async () => (logsOf(name).includes('stdin: second line') ? true : undefined));
  t.match(logsOf(name), /stdin logger: waiting for input\nstdin: first line\nstdin: second line/);
  stream.end();
});

t.test('the Mosquitto app listens on 1883 and says it could not announce without a supervisor', async (t) => {
  const store = await builtinApps();
  const { ref } = await buildAppImage(docker, store.app('core_hearth_mqtt'), { arch: 'amd64' });
  const { name } = await runBare(t, ref, { env: ['SUPERVISOR=http://127.0.0.1:9', 'SUPERVISOR_TOKEN=x'] });
  await eventually('the listener', async () => (logsOf(name).includes('mqtt: listening on 1883') ? true : undefined));
  t.match(logsOf(name), 'mqtt: could not announce the service');
  t.match(logsOf(name), /mosquitto version [\d.]+ running/);
  t.match(JSON.parse(sh('image', 'inspect', MOSQUITTO_BASE_IMAGE, '--format', '{{json .Config.Labels}}')), { 'hearth.base': 'mosquitto' }, 'built on the Mosquitto base its build.yaml names');
});

t.test('a base made from a host program that is missing names the package to install', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'hearth-base-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  await t.rejects(addHostPrograms(root, [{ path: '/usr/sbin/mosquitto-missing', package: 'mosquitto' }], "the Mosquitto app's base image"), {
    message: "the Mosquitto app's base image is made from this host's /usr/sbin/mosquitto-missing, which is missing: apt-get install -y mosquitto",
  });
});

t.test('build failures are the original errors', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-local-apps-'));
  // an app with no Dockerfile, and one whose Dockerfile fails
  for (const [slug, dockerfile] of [['nofile', null], ['broken', 'ARG BUILD_FROM\nFROM $BUILD_FROM\nRUN exit 3\n']] as const) {
    await mkdir(join(dir, slug));
    await writeFile(join(dir, slug, 'config.yaml'), `name: ${slug}\nversion: "0.1.${randomBytes(2).readUInt16BE()}"\nslug: ${slug}\ndescription: x\narch: [amd64]\n`);
    if (dockerfile) await writeFile(join(dir, slug, 'Dockerfile'), dockerfile);
  }
  await cp(join(dir, 'broken'), join(dir, 'armonly'), { recursive: true });
  // a build.yaml whose build_from is neither an image nor a map of images by arch
  await cp(join(dir, 'broken'), join(dir, 'badbase'), { recursive: true });
  await writeFile(join(dir, 'badbase', 'config.yaml'), 'name: badbase\nversion: "1"\nslug: badbase\ndescription: x\narch: [amd64]\n');
  await writeFile(join(dir, 'badbase', 'build.yaml'), 'build_from:\n  - hearth/busybox:stable\n');
  await writeFile(join(dir, 'armonly', 'config.yaml'), 'name: armonly\nversion: "1"\nslug: armonly\ndescription: x\narch: [aarch64]\n');
  const store = await builtinApps(dir);
  const failure = async (app: RepositoryApp) => {
    try {
      await buildAppImage(docker, app, { arch: 'amd64', logLine: () => {} });
    } catch (err) {
      return err as SupervisorError;
    }
    throw new Error('no failure');
  };
  const missing = await failure(store.app('local_nofile'));
  t.equal(missing.status, 400);
  t.equal(missing.message, "Cannot build app 'local_nofile' because dockerfile is missing. A repair using 'ha supervisor repair' will fix this if the cause is data corruption. Otherwise please report this to the app developer.");
  const broken = await failure(store.app('local_broken'));
  t.equal(broken.status, 500);
  t.equal(broken.message, 'An unknown error occurred while trying to build the image for app local_broken. Check Supervisor logs for details');
  const arch = await failure(store.app('local_armonly'));
  t.equal(arch.status, 400);
  t.match(arch.message, "Cannot build app 'local_armonly' because its supported architectures (aarch64) do not match the system supported architectures (amd64)");
  const lines: string[] = [];
  const badBase = await buildAppImage(docker, store.app('local_badbase'), { arch: 'amd64', logLine: (l) => lines.push(l) }).catch((err) => err as SupervisorError);
  t.match(badBase, { status: 500, message: 'An unknown error occurred while trying to build the image for app local_badbase. Check Supervisor logs for details' });
  t.match(lines.join('\n'), /build\.yaml: build_from is neither an image nor a map of images by arch/, 'the log says what is wrong with build.yaml');
  t.equal(appImageName(store.app('local_broken'), 'amd64'), 'local/amd64-addon-broken');
});
