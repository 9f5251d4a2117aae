import { resolve, sep } from 'node:path';

/**
 * `name` resolved under `parent`, or undefined when it would land anywhere else (`..`, an
 * absolute path) or on the folder itself. Names come from requests and archives: a check on
 * the text alone misses what `path.resolve` makes of it.
 */
export function insideFolder(parent: string, name: string): string | undefined {
  const folder = resolve(parent);
  const path = resolve(folder, name);
  return path.startsWith(folder.endsWith(sep) ? folder : folder + sep) ? path : undefined;
}
