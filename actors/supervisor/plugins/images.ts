import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Docker from 'dockerode';
import { addLibraries, addNodeRuntime, hostArch, imageExists, importRootfs, sourceLabel } from '../core/image.ts';
import { APP_BASE_IMAGE, ensureBaseImage } from '../apps/image.ts';
import { buildFolder } from '../docker/gnu-tar-stream.ts';
import { PLUGIN_SPECS, type PluginName } from './specs.ts';

/**
 * The plugins' images, made on this engine (nothing can be pulled): the dns plugin's is a root
 * filesystem holding this host's node and the resolver bundled with dns-packet (the way the
 * core's image is made); the others start from the apps' busybox base with a small command of
 * their own. Each is `hearth/<plugin>:<version>` labelled as the original labels its plugin
 * images.
 */

const RESOLVER_ENTRY = join(dirname(fileURLToPath(import.meta.url)), 'resolver', 'main.ts');

/** The image name without tag of a plugin. */
export const pluginImage = (name: PluginName) => `hearth/${name}`;

function labels(name: PluginName, version: string, digest: string): Record<string, string> {
  const { arch } = hostArch();
  return { 'io.hass.version': version, 'io.hass.arch': arch, 'io.hass.type': 'plugin', 'io.hass.name': name, 'hearth.source': digest };
}

/**
 * What a plugin's image is made from (the resolver's source, the busybox plugin's command and
 * files, node's version): an image of the same tag made from something else is made again.
 */
async function sourceDigest(name: PluginName): Promise<string> {
  const hash = createHash('sha256');
  if (name === 'dns') hash.update(await resolverScript()).update(process.version);
  else hash.update(JSON.stringify(PLUGIN_SPECS[name])).update(APP_BASE_IMAGE);
  return hash.digest('hex').slice(0, 16);
}

/**
 * The resolver as one CommonJS file with dns-packet inside, bundled by esbuild (which tsx
 * brings): the image holds node and this file, no node_modules. CommonJS because dns-packet
 * is, and its require of node's `buffer` fails inside an ES module bundle.
 */
export async function resolverScript(): Promise<string> {
  const { build } = await import('esbuild');
  const out = await build({ entryPoints: [RESOLVER_ENTRY], bundle: true, platform: 'node', format: 'cjs', target: `node${process.versions.node.split('.')[0]}`, write: false, logLevel: 'silent' });
  return out.outputFiles[0].text;
}

async function buildDnsImage(docker: Docker, version: string, digest: string): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'hearth-dns-rootfs-'));
  try {
    for (const d of ['tmp', 'config', 'plugin', 'etc']) await mkdir(join(root, d), { recursive: true });
    await chmod(join(root, 'tmp'), 0o1777);
    await writeFile(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
    await writeFile(join(root, 'plugin/resolver.cjs'), await resolverScript());
    await addLibraries(root, await addNodeRuntime(root));
    const changes = [
      'WORKDIR /plugin',
      'ENV PATH=/usr/bin:/bin',
      'EXPOSE 53/udp 53/tcp',
      'CMD ["node","/plugin/resolver.cjs"]',
      `LABEL ${Object.entries(labels('dns', version, digest))
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
    ];
    await importRootfs(docker, root, { image: pluginImage('dns'), tag: version, changes, code: 'HEARTH_PLUGIN_IMAGE' });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** A busybox plugin: the base image, the plugin's files, its command. */
async function buildBusyboxImage(docker: Docker, name: PluginName, version: string, digest: string, logLine: (line: string) => void): Promise<void> {
  await ensureBaseImage(docker, logLine);
  const spec = PLUGIN_SPECS[name];
  const dir = await mkdtemp(join(tmpdir(), `hearth-${name}-build-`));
  try {
    const files = spec.files ?? {};
    for (const [path, content] of Object.entries(files)) {
      await mkdir(dirname(join(dir, 'files', path)), { recursive: true });
      await writeFile(join(dir, 'files', path), content, { mode: 0o755 });
    }
    const dockerfile = [`FROM ${APP_BASE_IMAGE}`, Object.keys(files).length ? 'COPY files/ /' : '', `CMD ${JSON.stringify(spec.command)}`].filter(Boolean).join('\n');
    await writeFile(join(dir, 'Dockerfile'), `${dockerfile}\n`);
    const { error } = await buildFolder(docker, dir, { t: `${pluginImage(name)}:${version}`, labels: labels(name, version, digest) });
    if (error) throw new Error(`HEARTH_PLUGIN_IMAGE: the engine could not build the ${name} plugin's image: ${error}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const building = new Map<string, Promise<boolean>>();

/** Makes sure the plugin's image of `version` is on the engine; true when it was built now. */
export function ensurePluginImage(docker: Docker, name: PluginName, version: string, logLine: (line: string) => void = () => {}): Promise<boolean> {
  const ref = `${pluginImage(name)}:${version}`;
  const pending = building.get(ref);
  if (pending) return pending;
  const work = (async () => {
    const digest = await sourceDigest(name);
    if ((await sourceLabel(docker, ref)) === digest) return false;
    const started = Date.now();
    const previous = await docker.getImage(ref).inspect().then((i) => i.Id, () => null);
    if (name === 'dns') await buildDnsImage(docker, version, digest);
    else await buildBusyboxImage(docker, name, version, digest, logLine);
    if (!(await imageExists(docker, ref))) throw new Error(`HEARTH_PLUGIN_IMAGE: the engine did not keep ${ref}`);
    logLine(`built ${ref} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    // the image the tag named before is left untagged: gone unless a container still uses it
    if (previous) await docker.getImage(previous).remove().catch(() => {});
    return true;
  })().finally(() => building.delete(ref));
  building.set(ref, work);
  return work;
}
