// What the checks of configuration.yaml's sections share: the error that names the file and the
// problem, how a value is quoted in it, and the original's cv.ensure_list.

/** A configuration error that names the file and the problem. */
export class ConfigurationError extends Error {}

/** A value for an error message, cut short. */
export function shown(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** A value that may be one item or a list (cv.ensure_list): always a list, empty for null. */
export function listOf(value: unknown): unknown[] {
  return value === null ? [] : Array.isArray(value) ? value : [value];
}
