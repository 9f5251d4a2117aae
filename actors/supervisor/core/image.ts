import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, readdir, realpath, rm, stat, writeFile, chmod, copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type Docker from 'dockerode';
import { archOf, machineOf } from '../machine.ts';
import { readProgress, streamToText, tarOf } from '../docker/gnu-tar-stream.ts';
import { addLibraries, copyHostFile } from '../docker/host-files.ts';

// the dns plugin copies the host's node the same way
export { addLibraries };

/**
 * The core's image, built on this machine from the installed Hearth: no registry is needed.
 * The root filesystem holds this host's `node` with the shared libraries `ldd` names for it and
 * for the native addons (uWebSockets.js, classic-level), `/bin/sh` (dash) for command-line
 * platforms, and the app under `/app` with its production dependencies only. It is imported as
 * `hearth/core:<version>` with the command `node bin/hearth.js serve --port 1702 --data /config`.
 */

const run = promisify(execFile);

/** The image name without tag. */
export const CORE_IMAGE = 'hearth/core';
/** The port the core listens on inside its container. */
export const CORE_CONTAINER_PORT = 1702;

/** The installed Hearth (the folder holding package.json, bin/, actors/...). */
export const APP_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The folders of the app the core needs at run time (no tests, benches or docs). */
const APP_PARTS = ['package.json', 'tsconfig.json', 'bin', 'actors', 'machines', 'store', 'streams', 'gateway'];

/** The original's architecture and machine names for this host (as /info reports them). */
export function hostArch(): { arch: string; machine: string } {
  const arch = archOf();
  return { arch, machine: machineOf(arch) };
}

/**
 * A digest of the app's source as the image would hold it: an image of the same tag built from
 * other source (a checkout moved on) is built again, so the tag alone never hides a change.
 */
export async function sourceDigest(appRoot: string = APP_ROOT): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (rel: string): Promise<void> => {
    const abs = join(appRoot, rel);
    const st = await stat(abs).catch(() => null);
    if (!st) return;
    if (st.isDirectory()) {
      for (const name of (await readdir(abs)).sort()) await walk(join(rel, name));
    } else if (!/\.test\.ts$/.test(rel)) {
      hash.update(rel).update('\0').update(await readFile(abs)).update('\0');
    }
  };
  for (const part of APP_PARTS) await walk(part);
  // the packages installed: a dependency changed is a new image too
  hash.update(await readFile(join(appRoot, 'package-lock.json')).catch(() => Buffer.alloc(0)));
  return hash.digest('hex').slice(0, 16);
}

/** The `hearth.source` label of an image, null when it has none or is not there; an engine that does not answer rejects. */
export async function sourceLabel(docker: Docker, ref: string): Promise<string | null> {
  try {
    return (await docker.getImage(ref).inspect()).Config?.Labels?.['hearth.source'] ?? null;
  } catch (err: any) {
    if (err?.statusCode === 404) return null;
    throw err;
  }
}

/** Whether `image:tag` is on the engine. */
export async function imageExists(docker: Docker, ref: string): Promise<boolean> {
  try {
    await docker.getImage(ref).inspect();
    return true;
  } catch (err: any) {
    if (err?.statusCode === 404) return false;
    throw err;
  }
}

/** The production packages of the app, as paths relative to its root (`node_modules/x`). */
async function productionPackages(appRoot: string): Promise<string[]> {
  // asked where node_modules really is: npm lists a linked node_modules as all extraneous
  const installRoot = dirname(await realpath(join(appRoot, 'node_modules')));
  const { stdout } = await run('npm', ['ls', '--omit=dev', '--parseable', '--all'], { cwd: installRoot, maxBuffer: 16 * 1024 * 1024 }).catch((err) => {
    // npm ls exits non-zero on extraneous packages yet still lists the tree
    if (err?.stdout) return { stdout: String(err.stdout) };
    throw new Error(`HEARTH_CORE_IMAGE: cannot list the production packages with npm ls: ${err?.message ?? err}`);
  });
  const out: string[] = [];
  for (const line of stdout.split('\n')) {
    const p = line.trim();
    if (!p) continue;
    const rel = relative(installRoot, p);
    if (!rel.startsWith('node_modules')) continue;
    // type packages are for the compiler only
    if (/(^|\/)node_modules\/@types\//.test(rel)) continue;
    out.push(rel);
  }
  return out;
}

const ABI = process.versions.modules;
const PLATFORM_DIR = `${process.platform}-${process.arch}`;

/** Whether a file of a package is left out of the image (other platforms' binaries, docs, maps). */
function leftOut(relInPackage: string): boolean {
  const parts = relInPackage.split(sep);
  if (parts.includes('node_modules')) return true; // nested packages are copied on their own
  const name = parts[parts.length - 1];
  if (/\.(md|markdown|map|d\.ts|d\.mts|d\.cts)$/i.test(name) && name !== 'package.json') return true;
  if (parts[0] === 'test' || parts[0] === 'tests' || parts[0] === 'bench' || parts[0] === 'example' || parts[0] === 'examples' || parts[0] === 'docs') return true;
  // uWebSockets.js ships every platform and ABI (it loads binaries/uws_<platform>_<arch>_<abi>.node): keep this one's
  if (/^uws_.*\.node$/.test(name) && (parts[0] !== 'binaries' || name !== `uws_${process.platform}_${process.arch}_${ABI}.node`)) return true;
  // prebuildify layouts: prebuilds/<platform-arch>/...
  const pb = parts.indexOf('prebuilds');
  if (pb >= 0 && parts.length > pb + 1 && parts[pb + 1] !== PLATFORM_DIR) return true;
  if (pb >= 0 && /musl/.test(name)) return true;
  return false;
}

/**
 * Puts this host's `node` (at its own path and at /usr/bin/node) and `/bin/sh` into a root
 * filesystem; answers the binaries copied, whose libraries `addLibraries` then brings.
 */
export async function addNodeRuntime(root: string): Promise<string[]> {
  await mkdir(join(root, 'usr/bin'), { recursive: true });
  await mkdir(join(root, 'bin'), { recursive: true });
  const node = await realpath(process.execPath);
  await copyHostFile(root, node, 0o755);
  if (node !== '/usr/bin/node') await copyFile(node, join(root, 'usr/bin/node'));
  await chmod(join(root, 'usr/bin/node'), 0o755);
  const binaries = [node];
  const dash = await realpath('/bin/sh').catch(() => null);
  if (dash) {
    await copyFile(dash, join(root, 'bin/sh'));
    await chmod(join(root, 'bin/sh'), 0o755);
    binaries.push(dash);
  }
  return binaries;
}

/**
 * Imports a root filesystem as `image:tag` with Dockerfile-like `changes`; answers the bytes
 * sent. A refusal or a missing result is an error starting with `code`.
 */
export async function importRootfs(docker: Docker, root: string, options: { image: string; tag: string; changes: string[]; code: string }): Promise<number> {
  const ref = `${options.image}:${options.tag}`;
  const tar = tarOf(root);
  const progress = (await docker.importImage(tar.stream as any, { repo: options.image, tag: options.tag, changes: options.changes } as any)) as unknown as NodeJS.ReadableStream;
  const answer = await streamToText(progress);
  await tar.done.catch((err) => {
    throw new Error(`${options.code}: ${(err as Error).message}`);
  });
  const { error } = readProgress(answer);
  if (error) throw new Error(`${options.code}: the engine refused the image: ${error}`);
  if (!(await imageExists(docker, ref))) throw new Error(`${options.code}: the engine did not keep ${ref}: ${answer.trim()}`);
  return tar.bytes();
}

export interface BuildReport {
  ref: string;
  bytes: number;
  ms: number;
}

/**
 * Builds the root filesystem in a temporary folder and imports it as `image:tag`.
 * `logLine` receives progress lines.
 */
export async function buildCoreImage(docker: Docker, options: { image?: string; tag: string; appRoot?: string; digest?: string; logLine?: (line: string) => void }): Promise<BuildReport> {
  const started = Date.now();
  const appRoot = options.appRoot ?? APP_ROOT;
  const image = options.image ?? CORE_IMAGE;
  const ref = `${image}:${options.tag}`;
  const logLine = options.logLine ?? (() => {});
  const root = await mkdtemp(join(tmpdir(), 'hearth-core-rootfs-'));
  try {
    logLine(`building ${ref}: root filesystem in ${root}`);
    for (const d of ['tmp', 'config', 'root', 'etc', 'app', 'usr/bin', 'bin']) await mkdir(join(root, d), { recursive: true });
    await chmod(join(root, 'tmp'), 0o1777);
    await writeFile(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n');
    await writeFile(join(root, 'etc/group'), 'root:x:0:\nnogroup:x:65534:\n');
    await writeFile(join(root, 'etc/nsswitch.conf'), 'passwd: files\ngroup: files\nhosts: files dns\n');

    // node and a shell, with what they load
    const binaries = await addNodeRuntime(root);

    // the app and its production packages
    for (const part of APP_PARTS) {
      const from = join(appRoot, part);
      if (!(await stat(from).catch(() => null))) continue;
      await cp(from, join(root, 'app', part), { recursive: true, dereference: true, filter: (src) => !/\.test\.ts$/.test(src) });
    }
    const modulesRoot = await realpath(join(appRoot, 'node_modules'));
    for (const rel of await productionPackages(appRoot)) {
      const from = join(modulesRoot, relative('node_modules', rel));
      const to = join(root, 'app', rel);
      await cp(from, to, { recursive: true, dereference: true, filter: (src) => !leftOut(relative(from, src)) });
    }
    // every native addon kept brings its libraries
    const addons = (await run('find', [join(root, 'app', 'node_modules'), '-name', '*.node', '-type', 'f'])).stdout.split('\n').filter(Boolean);
    for (const addon of addons) binaries.push(addon);
    const libs = await addLibraries(root, binaries);
    logLine(`building ${ref}: node, ${libs} libraries, ${addons.length} native addons`);

    const { arch, machine } = hostArch();
    const changes = [
      'WORKDIR /app',
      'ENV HOME=/root',
      'ENV PATH=/usr/local/bin:/usr/bin:/bin',
      `EXPOSE ${CORE_CONTAINER_PORT}/tcp`,
      `CMD ["node","bin/hearth.js","serve","--port","${CORE_CONTAINER_PORT}","--data","/config"]`,
      `LABEL io.hass.version=${options.tag} io.hass.arch=${arch} io.hass.machine=${machine} io.hass.type=core hearth.source=${options.digest ?? (await sourceDigest(appRoot))}`,
    ];
    const bytes = await importRootfs(docker, root, { image, tag: options.tag, changes, code: 'HEARTH_CORE_IMAGE' });
    const report = { ref, bytes, ms: Date.now() - started };
    logLine(`built ${ref}: ${(bytes / 1048576).toFixed(1)} MiB in ${(report.ms / 1000).toFixed(1)} s`);
    return report;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

// one build of a tag at a time in this process, and across processes (test files run side by side)
const building = new Map<string, Promise<boolean>>();

/**
 * Makes sure `image:tag` exists and holds this source, building it when it does not (or when
 * `rebuild`). Resolves to true when it built the image. Another process building the same tag
 * is waited for.
 */
export function ensureCoreImage(docker: Docker, options: { image?: string; tag: string; rebuild?: boolean; appRoot?: string; logLine?: (line: string) => void }): Promise<boolean> {
  const ref = `${options.image ?? CORE_IMAGE}:${options.tag}`;
  const pending = building.get(ref);
  if (pending) return pending;
  const work = (async () => {
    const digest = await sourceDigest(options.appRoot);
    const current = async () => !options.rebuild && (await sourceLabel(docker, ref)) === digest;
    if (await current()) return false;
    const lock = join(tmpdir(), `hearth-core-image-${ref.replace(/[^A-Za-z0-9.-]/g, '_')}.lock`);
    const until = Date.now() + 10 * 60_000;
    for (;;) {
      try {
        await mkdir(lock);
        await writeFile(join(lock, 'pid'), String(process.pid));
        break;
      } catch (err: any) {
        if (err?.code !== 'EEXIST') throw err;
        const holder = Number(await readFile(join(lock, 'pid'), 'utf8').catch(() => '0'));
        const age = Date.now() - ((await stat(lock).catch(() => null))?.mtimeMs ?? 0);
        if ((holder && !alive(holder) && age > 2000) || age > 10 * 60_000 || Date.now() > until) {
          await rm(lock, { recursive: true, force: true });
          continue;
        }
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    try {
      if (await current()) return false;
      const previous = await docker.getImage(ref).inspect().then((i) => i.Id, () => null);
      await buildCoreImage(docker, { image: options.image, tag: options.tag, appRoot: options.appRoot, digest, logLine: options.logLine });
      // the image the tag named before is left untagged: gone unless a container still uses it
      if (previous) await docker.getImage(previous).remove().catch(() => {});
      return true;
    } finally {
      await rm(lock, { recursive: true, force: true });
    }
  })();
  building.set(ref, work);
  work.then(
    () => building.delete(ref),
    () => building.delete(ref),
  );
  return work;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err: any) {
    return err?.code === 'EPERM';
  }
}
