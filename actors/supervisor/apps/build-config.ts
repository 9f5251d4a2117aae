import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';

/**
 * An app's `build.yaml` (or .yml/.json), as the original's builder reads it: the base image per
 * architecture (`build_from`, one name or a map by arch) and extra build arguments (`args`).
 * Without one, or without an entry for the arch, the app builds from the default base.
 */

// the original's RE_DOCKER_IMAGE_BUILD: a name with an optional tag
const RE_IMAGE_BUILD = /^([a-zA-Z\-.:\d{}]+\/)*?([\-\w{}]+)\/([\-\w{}]+)(:[.\-\w{}]+)?$/;

/** How an app is built for one arch. */
export interface BuildConfig {
  /** the image its Dockerfile's `FROM $BUILD_FROM` names */
  buildFrom: string;
  /** build arguments besides BUILD_FROM, BUILD_VERSION and BUILD_ARCH */
  args: Record<string, string>;
}

const stringMap = (v: unknown): v is Record<string, string> => !!v && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');

/** The app's build configuration for `arch`; an unreadable or invalid file is an error naming it and why. */
export async function readBuildConfig(appPath: string, arch: string, defaultBase: string): Promise<BuildConfig> {
  let file: string | null = null;
  for (const name of ['build.yaml', 'build.yml', 'build.json']) {
    if ((await stat(join(appPath, name)).catch(() => null))?.isFile()) {
      file = join(appPath, name);
      break;
    }
  }
  if (!file) return { buildFrom: defaultBase, args: {} };
  const text = await readFile(file, 'utf8');
  const data = (file.endsWith('.json') ? JSON.parse(text) : parseYaml(text)) ?? {};
  if (typeof data !== 'object' || Array.isArray(data)) throw new Error(`${file}: expected a dictionary`);
  const from: unknown = data.build_from ?? {};
  const base = typeof from === 'string' ? from : stringMap(from) ? from[arch] : undefined;
  if (typeof from !== 'string' && !stringMap(from)) throw new Error(`${file}: build_from is neither an image nor a map of images by arch`);
  if (base !== undefined && !RE_IMAGE_BUILD.test(base)) throw new Error(`${file}: ${base} is not an image name`);
  const args: unknown = data.args ?? {};
  if (!stringMap(args)) throw new Error(`${file}: args is not a map of strings`);
  return { buildFrom: base ?? defaultBase, args };
}
