/**
 * The app options schema language (`schema:` in an app's config.yaml) and the check of user
 * options against it, with the original supervisor's behaviour and messages:
 *  - keys not in the schema are dropped and reported through `warn`, never an error;
 *  - every key whose type has no trailing `?` must be present (for a list, its element decides);
 *  - `null` for a plain type is "Missing required option", for a list/dict "Invalid list/dict";
 *  - int/float/port are coerced (Python `int()`/`float()` rules), bool takes the usual words,
 *    str/password must already be strings, match/list compare the value's text;
 *  - password values are remembered (SHA-1) for the pwned-secrets check.
 * Failures carry the message the original's API shows: `<reason>. Got <Python repr of the options>`.
 */
import { createHash } from 'node:crypto';
import { volBoolean, pyTruthy } from '../../../machines/python/boolean.ts';
import { floatRepr, parseFloatText, parseIntText } from '../../../machines/python/float.ts';
import { pyRepr, pyStr } from '../../../machines/python/repr.ts';
import { pythonPattern } from '../../../machines/python/regex.ts';

export type SchemaElement = string | SchemaElement[] | { [key: string]: SchemaElement };
export type SchemaDict = { [key: string]: SchemaElement };
/** `false` means the app takes its options as they are (no schema, no UI). */
export type Schema = SchemaDict | false;

export interface HardwareDevice {
  /** the device node, e.g. /dev/ttyUSB0 */
  path: string;
  sysfs?: string;
  /** symlinks to the node, e.g. /dev/serial/by-id/usb-... */
  links?: string[];
  subsystem?: string | null;
}

export interface AppIdent {
  name: string;
  slug: string;
}

export interface ValidateContext {
  devices?: readonly HardwareDevice[];
  /** `!secret <name>` lookup (Core's secrets.yaml); undefined = unknown secret */
  secrets?: (name: string) => unknown;
  /** unknown option keys are reported here (the original logs a warning) */
  warn?: (message: string) => void;
}

export type OptionsResult =
  | { ok: true; value: Record<string, unknown>; pwned: string[]; devices: HardwareDevice[] }
  | { ok: false; message: string; reason: string; pwned: string[] };

export interface OptionsValidateAnswer {
  message: string;
  valid: boolean;
  pwned: boolean | null;
}

const ELEMENT =
  /^(?:|bool|email|url|port|device(?:\((?<filter>subsystem=[a-z]+)\))?|str(?:\((?<s_min>\d+)?,(?<s_max>\d+)?\))?|password(?:\((?<p_min>\d+)?,(?<p_max>\d+)?\))?|int(?:\((?<i_min>-?\d+)?,(?<i_max>-?\d+)?\))?|float(?:\((?<f_min>-?\d*\.?\d+)?,(?<f_max>-?\d*\.?\d+)?\))?|match\((?<match>.*)\)|list\((?<list>.+)\))\??$/;

const BOUND_GROUPS = ['i_min', 'i_max', 'f_min', 'f_max', 's_min', 's_max', 'p_min', 'p_max'] as const;

function isDict(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// ---------------------------------------------------------------- schema parsing

function checkElement(el: unknown, where: string, inList: boolean): SchemaElement {
  if (typeof el === 'string') {
    if (!ELEMENT.test(el)) throw new Error(`Invalid schema for option '${where}': unknown type '${el}'`);
    return el;
  }
  if (Array.isArray(el)) {
    if (inList) throw new Error(`Invalid schema for option '${where}': a list may not directly contain a list`);
    return el.map((item, i) => checkElement(item, `${where}[${i}]`, true));
  }
  if (isDict(el)) return checkDict(el, where);
  throw new Error(`Invalid schema for option '${where}': expected a type string, a list or a dict, got ${pyRepr(el)}`);
}

function checkDict(raw: Record<string, unknown>, prefix: string): SchemaDict {
  const out: SchemaDict = {};
  for (const [key, el] of Object.entries(raw)) out[key] = checkElement(el, prefix ? `${prefix}.${key}` : key, false);
  return out;
}

/** Checks an app's `schema:` (absent → `{}`, `false` kept). Throws with a clear message. */
export function parseSchema(schema: unknown): Schema {
  if (schema === undefined) return {};
  if (schema === false) return false;
  if (!isDict(schema)) throw new Error(`Invalid schema: expected a dict of option types or false, got ${pyRepr(schema)}`);
  return checkDict(schema, '');
}

// ---------------------------------------------------------------- Python-like helpers

const MAX_ITEM = 500;

/** voluptuous' humanize_error for an error without a path: `<reason>. Got <repr(data)>`. */
export function humanize(reason: string, data: unknown): string {
  let got = pyRepr(data);
  if (got.length > MAX_ITEM) got = `${got.slice(0, MAX_ITEM - 3)}...`;
  return `${reason}. Got ${got}`;
}

class Invalid extends Error {}
class TypeFault extends Error {}

function coerceInt(v: unknown): number {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  const n = typeof v === 'string' ? parseIntText(v) : undefined;
  if (n === undefined) throw new Invalid('expected int');
  return n;
}

function coerceFloat(v: unknown): number {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return v;
  const n = typeof v === 'string' ? parseFloatText(v) : undefined;
  if (n === undefined) throw new Invalid('expected float');
  return n;
}

function range(n: number, min: number | undefined, max: number | undefined, show: (x: number) => string): number {
  if (min !== undefined && !(n >= min)) throw new Invalid(`value must be at least ${show(min)}`);
  if (max !== undefined && !(n <= max)) throw new Invalid(`value must be at most ${show(max)}`);
  return n;
}

function pyBool(v: unknown): boolean {
  const b = volBoolean(v);
  if (b === undefined) throw new Invalid('expected boolean');
  return b;
}

const EMAIL_USER =
  /^(?:[-!#$%&'*+/=?^_`{}|~0-9A-Z]+(?:\.[-!#$%&'*+/=?^_`{}|~0-9A-Z]+)*|"(?:[\x01-\x08\x0b\x0c\x0e-\x1f!#-[\]-\x7f]|\\[\x01-\x09\x0b\x0c\x0e-\x7f])*")$/i;
const EMAIL_DOMAIN =
  /^(?:(?:[A-Z0-9](?:[A-Z0-9-]{0,61}[A-Z0-9])?\.)+(?:[A-Z]{2,6}\.?|[A-Z0-9-]{2,}\.?)|\[(?:25[0-5]|2[0-4]\d|[0-1]?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|[0-1]?\d?\d)){3}\])$/i;

function email(v: unknown): string {
  if (typeof v !== 'string' || !v.includes('@')) throw new Invalid('expected an email address');
  const at = v.lastIndexOf('@');
  if (!EMAIL_USER.test(v.slice(0, at)) || !EMAIL_DOMAIN.test(v.slice(at + 1))) throw new Invalid('expected an email address');
  return v;
}

function url(v: unknown): string {
  if (typeof v !== 'string') throw new Invalid('expected a URL');
  // urllib.parse.urlparse: leading blanks stripped, tabs/newlines removed, scheme before ':', host after '//'
  const s = v.replace(/^[\x00-\x20]+/, '').replace(/[\t\r\n]/g, '');
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)/.exec(s);
  if (!m || m[2] === '') throw new Invalid('expected a URL');
  const host = m[2]!;
  if (host.includes('[') !== host.includes(']')) throw new Invalid('expected a URL');
  return v;
}

/** Python's re.match on a pattern written for Python: anchored at the start only. */
function pyMatch(pattern: string, text: string): boolean {
  let re: RegExp;
  try {
    const { source, flags } = pythonPattern(pattern);
    re = new RegExp(source, `${flags}y`);
  } catch {
    return false;
  }
  return re.test(text);
}

function byId(device: HardwareDevice): string | undefined {
  return (device.links ?? []).find((l) => /^\/dev\/[^/]+\/by-id\/[^/]+$/.test(l));
}

function subsystemOf(filter: string): string | undefined {
  for (const part of filter.split(';')) {
    const [k, v] = part.split('=');
    if (k === 'subsystem') return v;
  }
  return undefined;
}

// ---------------------------------------------------------------- validation

class Validator {
  readonly pwned = new Set<string>();
  readonly devices = new Set<HardwareDevice>();
  private readonly tail: string;

  constructor(
    private readonly app: AppIdent,
    private readonly ctx: ValidateContext,
  ) {
    this.tail = `${app.name} (${app.slug})`;
  }

  root(schema: SchemaDict, struct: unknown): Record<string, unknown> {
    if (!isDict(struct)) throw new Invalid('expected dict');
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(struct)) {
      if (!Object.hasOwn(schema, key)) {
        this.ctx.warn?.(`Option '${key}' does not exist in the schema for ${this.tail}`);
        continue;
      }
      try {
        out[key] = this.element(schema[key]!, value, key);
      } catch (e) {
        if (e instanceof TypeFault) throw new Invalid(`Type error for option '${key}' in ${this.tail}`);
        throw e;
      }
    }
    this.missing(schema, out, 'root');
    return out;
  }

  private element(typ: SchemaElement, value: unknown, key: string): unknown {
    if (Array.isArray(typ)) {
      if (typ.length === 0) throw new TypeFault();
      if (!Array.isArray(value)) throw new Invalid(`Invalid list for option '${key}' in ${this.tail}`);
      return value.map((item) => this.element(typ[0]!, item, key));
    }
    if (isDict(typ)) {
      if (!isDict(value)) throw new Invalid(`Invalid dict for option '${key}' in ${this.tail}`);
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (!Object.hasOwn(typ, k)) {
          this.ctx.warn?.(`Unknown option '${k}' for ${this.tail}`);
          continue;
        }
        out[k] = this.element(typ[k]!, v, k);
      }
      this.missing(typ, out, key);
      return out;
    }
    return this.single(typ, value, key);
  }

  private single(typ: string, raw: unknown, key: string): unknown {
    if (raw === null || raw === undefined) throw new Invalid(`Missing required option '${key}' in ${this.tail}`);
    let value = raw;
    if (typeof value === 'string' && value.startsWith('!secret ')) {
      const secret = value.slice('!secret '.length);
      const found = this.ctx.secrets?.(secret);
      if (found === undefined || found === null) throw new Invalid(`Unknown secret '${secret}' in ${this.tail}`);
      value = found;
    }
    const m = ELEMENT.exec(typ);
    if (!m) throw new Invalid(`Unknown type '${typ}' in ${this.tail}`);
    const g = m.groups ?? {};
    const bounds: { min?: number; max?: number } = {};
    for (const name of BOUND_GROUPS) {
      const text = g[name];
      if (text) bounds[name.slice(2) as 'min' | 'max'] = Number(text);
    }

    if (typ.startsWith('str') || typ.startsWith('password')) {
      if (typ.startsWith('password') && pyTruthy(value)) this.pwned.add(createHash('sha1').update(pyStr(value)).digest('hex'));
      if (typeof value !== 'string') throw new Invalid('expected str');
      const length = [...value].length;
      if (bounds.min !== undefined && length < bounds.min) throw new Invalid(`length of value must be at least ${floatRepr(bounds.min)}`);
      if (bounds.max !== undefined && length > bounds.max) throw new Invalid(`length of value must be at most ${floatRepr(bounds.max)}`);
      return value;
    }
    if (typ.startsWith('int')) return range(coerceInt(value), bounds.min, bounds.max, floatRepr);
    if (typ.startsWith('float')) return range(coerceFloat(value), bounds.min, bounds.max, floatRepr);
    if (typ.startsWith('bool')) return pyBool(value);
    if (typ.startsWith('email')) return email(value);
    if (typ.startsWith('url')) return url(value);
    if (typ.startsWith('port')) return range(coerceInt(value), 1, 65535, String);
    if (typ.startsWith('match')) {
      const pattern = g['match']!;
      const text = pyStr(value);
      if (!pyMatch(pattern, text)) throw new Invalid(`does not match regular expression ${pattern}`);
      return text;
    }
    if (typ.startsWith('list')) {
      const choices = g['list']!.split('|');
      const text = pyStr(value);
      if (!choices.includes(text)) throw new Invalid(`value must be one of ${pyRepr([...choices].sort())}`);
      return text;
    }
    if (typ.startsWith('device')) {
      if (typeof value !== 'string') throw new Invalid(`Expected a string for option '${key}' in ${this.tail}`);
      const device = (this.ctx.devices ?? []).find((d) => value === d.path || value === d.sysfs || (d.links ?? []).includes(value as string));
      if (!device) throw new Invalid(`Device '${value}' does not exist in ${this.tail}`);
      const filter = g['filter'];
      if (filter) {
        const wanted = subsystemOf(filter);
        if (wanted && device.subsystem !== wanted) throw new Invalid(`Device '${value}' don't match the filter ${filter}! in ${this.tail}`);
      }
      this.devices.add(device);
      return value;
    }
    throw new Invalid(`Fatal error for option '${key}' with type '${typ}' in ${this.tail}`);
  }

  private missing(schema: SchemaDict, present: Record<string, unknown>, root: string): void {
    for (const key of Object.keys(schema)) {
      if (Object.hasOwn(present, key)) continue;
      let el = schema[key]!;
      if (Array.isArray(el) && el.length > 0) el = el[0]!;
      if (typeof el === 'string' && el.endsWith('?')) continue;
      throw new Invalid(`Missing option '${key}' in ${root} in ${this.tail}`);
    }
  }
}

/**
 * Checks user options against an app's schema (`false` acts as `{}`: every key dropped, as the original).
 * On failure `message` is what the API shows (`<reason>. Got <repr>`), `reason` the bare cause.
 * `pwned` lists the SHA-1 (hex) of password values seen (also when the check failed later).
 */
export function validateOptions(schema: Schema, options: unknown, app: AppIdent, ctx: ValidateContext = {}): OptionsResult {
  const v = new Validator(app, ctx);
  try {
    // `schema: false` validates like an empty schema: every key is dropped
    const value = v.root(schema === false ? {} : schema, options);
    return { ok: true, value, pwned: [...v.pwned], devices: [...v.devices] };
  } catch (e) {
    if (!(e instanceof Invalid)) throw e;
    return { ok: false, message: humanize(e.message, options), reason: e.message, pwned: [...v.pwned] };
  }
}

/** The 400 message (error key app_configuration_invalid_error) for options refused on set or on start. */
export function invalidOptionsMessage(slug: string, message: string): string {
  return `App ${slug} has invalid options: ${message}`;
}

/**
 * The options an app runs with: its config defaults deep-merged with what the user stored.
 * Dicts merge key by key; anything else (lists included, and null) from the user replaces the default.
 */
export function mergeOptions(defaults: unknown, user: unknown): Record<string, unknown> {
  const merge = (a: unknown, b: unknown): unknown => {
    if (!isDict(a) || !isDict(b)) return structuredClone(b);
    const out: Record<string, unknown> = structuredClone(a);
    for (const [k, v] of Object.entries(b)) out[k] = Object.hasOwn(out, k) ? merge(out[k], v) : structuredClone(v);
    return out;
  };
  const base = isDict(defaults) ? defaults : {};
  return merge(base, isDict(user) ? user : {}) as Record<string, unknown>;
}

export interface PwnedSettings {
  /** security `pwned` on */
  pwned: boolean;
  /** security `force_security` on */
  force: boolean;
  /** true when the SHA-1 is a known leaked password; throws when the check cannot be done.
   *  Absent = no network: every check fails (pwned → null). */
  checkSecret?: (sha1: string) => Promise<boolean>;
}

/** The `/addons/<slug>/options/validate` answer `{message, valid, pwned}`. */
export async function optionsValidateAnswer(
  schema: Schema,
  options: unknown,
  app: AppIdent,
  security: PwnedSettings,
  ctx: ValidateContext = {},
): Promise<OptionsValidateAnswer> {
  const result = validateOptions(schema, options, app, ctx);
  const answer: OptionsValidateAnswer = { message: '', valid: true, pwned: false };
  if (!result.ok) {
    answer.message = result.message;
    answer.valid = false;
  }
  if (!security.pwned) return answer;
  for (const sha1 of result.pwned) {
    try {
      if (!security.checkSecret) throw new Error('no pwned check');
      if (!(await security.checkSecret(sha1))) continue;
      answer.pwned = true;
    } catch {
      answer.pwned = null;
    }
    break;
  }
  if (security.force && answer.pwned !== false) {
    answer.valid = false;
    answer.message = answer.pwned === null ? 'Error happening on pwned secrets check!' : 'App uses pwned secrets!';
  }
  return answer;
}

// ---------------------------------------------------------------- UI schema

export type UiNode = Record<string, unknown>;

function uiElement(out: UiNode[], el: SchemaElement, key: string, devices: readonly HardwareDevice[], multiple = false): void {
  if (Array.isArray(el)) {
    if (el.length === 0 || multiple) return; // the original logs "Invalid schema <key>" and skips it
    uiElement(out, el[0]!, key, devices, true);
    return;
  }
  if (isDict(el)) {
    const schema: UiNode[] = [];
    for (const [k, v] of Object.entries(el)) uiElement(schema, v, k, devices);
    out.push({ name: key, type: 'schema', optional: true, multiple, schema });
    return;
  }
  const m = ELEMENT.exec(el);
  if (!m) return;
  const g = m.groups ?? {};
  const node: UiNode = { name: key };
  if (multiple) node['multiple'] = true;
  for (const name of BOUND_GROUPS) {
    const text = g[name];
    if (!text) continue;
    node[name.endsWith('min') ? 'lengthMin' : 'lengthMax'] = Number(text);
  }
  if (el.endsWith('?')) node['optional'] = true;
  else node['required'] = true;
  if (el.startsWith('str')) node['type'] = 'string';
  else if (el.startsWith('password')) Object.assign(node, { type: 'string', format: 'password' });
  else if (el.startsWith('int')) node['type'] = 'integer';
  else if (el.startsWith('float')) node['type'] = 'float';
  else if (el.startsWith('bool')) node['type'] = 'boolean';
  else if (el.startsWith('email')) Object.assign(node, { type: 'string', format: 'email' });
  else if (el.startsWith('url')) Object.assign(node, { type: 'string', format: 'url' });
  else if (el.startsWith('port')) node['type'] = 'integer';
  else if (el.startsWith('match')) node['type'] = 'string';
  else if (el.startsWith('list')) Object.assign(node, { type: 'select', options: g['list']!.split('|') });
  else if (el.startsWith('device')) {
    const wanted = g['filter'] ? subsystemOf(g['filter']) : undefined;
    const shown = devices.filter((d) => !wanted || d.subsystem === wanted).map((d) => byId(d) ?? d.path);
    Object.assign(node, { type: 'select', options: shown });
  }
  out.push(node);
}

/** The `schema` of `/addons/<slug>/info`: the frontend's form description; null for `schema: false`. */
export function uiSchema(schema: Schema, devices: readonly HardwareDevice[] = []): UiNode[] | null {
  if (schema === false) return null;
  const out: UiNode[] = [];
  for (const [key, el] of Object.entries(schema)) uiElement(out, el, key, devices);
  return out;
}
