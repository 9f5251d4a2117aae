import type { StaticDecode, TSchema } from '@sinclair/typebox';
import { pyRepr } from '../../../machines/python/repr.ts';
import { convert } from '../../voluptuous/cv.ts';
import { humanizeProblem } from '../../voluptuous/humanize.ts';
import type { Path, Problem } from '../../voluptuous/problems.ts';
import { KeyReader } from '../../voluptuous/reader.ts';
import { Refusal } from '../../voluptuous/schema.ts';

/**
 * Reading the nested dicts and lists of an automation or a script, as the original's
 * config_validation walks them: each value through a voluptuous schema (actors/voluptuous), a
 * refusal kept with its path from the item's top (`data['actions'][0]['delay']`) so it is
 * reported as humanize_error writes it.
 */

/** One refusal inside an automation or a script, where it is and what was found there. */
export class ConfigProblem extends Error {
  readonly code = 'HEARTH_INVALID_CONFIG';
  /**
   * Found by a trigger kind's own validation, which the original runs after the automation's
   * schema passed (async_validate_trigger_config): it names the failed part differently.
   */
  late = false;
  /** `message`: several problems' lines, where they were gathered (the first of them is `problem`) */
  constructor(
    readonly problem: Problem,
    message = humanizeProblem(problem, 500),
  ) {
    super(message);
  }
}

/**
 * The problems of one dict's keys gathered, as voluptuous reports every key's problem at once
 * (humanize_error sorts them, one a line). A trigger kind's own problem (`late`) is one the
 * original finds only after the schema passed, so it is reported only when nothing else is.
 */
export class Gathered {
  readonly problems: ConfigProblem[] = [];

  /** What `read` gives, or undefined when it refused (the refusal kept). */
  take<T>(read: () => T): T | undefined {
    try {
      return read();
    } catch (err) {
      if (!(err instanceof ConfigProblem)) throw err;
      this.problems.push(err);
      return undefined;
    }
  }

  /** Throws what was gathered, if anything was. */
  done(): void {
    if (!this.problems.length) return;
    const early = this.problems.filter((p) => !p.late);
    if (!early.length) throw this.problems[0];
    if (early.length === 1) throw early[0];
    const sorted = [...early].sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
    throw new ConfigProblem(sorted[0].problem, sorted.map((p) => p.message).join('\n'));
  }
}

/** A refusal at `path` of the value found there (a value's own failure, unless a key is missing or extra). */
export function refuse(reason: string, path: Path, value: unknown, own = true): ConfigProblem {
  return new ConfigProblem({ reason, path, value, own });
}

export const isDict = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Python's falsiness of what YAML gives: None, false, 0, an empty str, list or dict. */
export function pyFalsy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isDict(value) && Object.keys(value).length === 0;
}

/** cv.ensure_list: None is no item, a list is itself, anything else one item (at index 0 of the list it is made). */
export function ensureList(value: unknown): unknown[] {
  return value === null || value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** A value through a check written as a function: its Refusal at `path`. */
export function check<T>(path: Path, value: unknown, read: (value: unknown) => T): T {
  try {
    return read(value);
  } catch (err) {
    if (err instanceof Refusal) throw refuse(err.message, path, value);
    throw err;
  }
}

/** One dict of the item: its keys checked against the schema's, each value read at its own path. */
export class DictReader extends KeyReader<ConfigProblem> {
  constructor(
    raw: Record<string, unknown>,
    readonly path: Path,
    allowed?: readonly string[],
  ) {
    super(raw);
    if (allowed) for (const key of Object.keys(raw)) if (!allowed.includes(key)) throw this.error(key, 'extra keys not allowed');
  }

  /** Every key not among `allowed` refused into `gathered` (voluptuous names each extra key). */
  static gathering(raw: Record<string, unknown>, path: Path, allowed: readonly string[], gathered: Gathered): DictReader {
    const r = new DictReader(raw, path);
    for (const key of Object.keys(raw)) if (!allowed.includes(key)) gathered.problems.push(r.error(key, 'extra keys not allowed'));
    return r;
  }

  /** A dict at `path`, refused with `words` (the validator's) when it is none. */
  static of(value: unknown, path: Path, allowed?: readonly string[], words = 'expected a dictionary'): DictReader {
    if (!isDict(value)) throw refuse(words, path, value);
    return new DictReader(value, path, allowed);
  }

  error(key: string | undefined, message: string): ConfigProblem {
    if (key === undefined) return refuse(message, this.path, this.raw);
    const own = message !== 'required key not provided' && message !== 'extra keys not allowed';
    return refuse(message, [...this.path, key], this.raw[key], own);
  }

  at(key: string): Path {
    return [...this.path, key];
  }

  /** The key's value read by a function of ours (given the value and its path), or undefined when absent. */
  read<T>(key: string, read: (value: unknown, path: Path) => T): T | undefined {
    if (!this.has(key)) return undefined;
    return read(this.raw[key], this.at(key));
  }

  /** As `read`, the key required. */
  need<T>(key: string, read: (value: unknown, path: Path) => T): T {
    if (!this.has(key)) throw this.error(key, 'required key not provided');
    return read(this.raw[key], this.at(key));
  }

  /** The key through a check that throws a Refusal (a function), or undefined when absent. */
  checked<T>(key: string, read: (value: unknown) => T): T | undefined {
    return this.read(key, (value, path) => check(path, value, read));
  }

  /** has_at_least_one_key, in the original's words. */
  atLeastOne(...keys: string[]): void {
    if (!keys.some((k) => this.has(k))) throw this.error(undefined, `must contain at least one of ${keys.join(', ')}.`);
  }

  /** vol.Exclusive: two keys of one group of exclusion. */
  exclusive(group: string, ...keys: string[]): void {
    const present = keys.filter((k) => this.has(k));
    if (present.length > 1) throw this.error(present[1], `two or more values in the same group of exclusion '${group}'`);
  }
}

/** A value through a TypeBox schema of actors/voluptuous, refused at `path`. */
export function through<T extends TSchema>(schema: T, value: unknown, path: Path): StaticDecode<T> {
  return check(path, value, (v) => convert(schema, v));
}

/** `str` (voluptuous' type check, no coercion): used where the original writes `str` on purpose. */
export function pyStrOnly(value: unknown): string {
  if (typeof value !== 'string') throw new Refusal('expected str');
  return value;
}

/** The value for a message, as Python prints it. */
export const shown = (value: unknown): string => pyRepr(value);
