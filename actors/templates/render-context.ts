// What one render offers the values and functions it works with (RenderEnv): the budget every
// step is counted against, Python's truth, printing and iteration with the original's logging
// Undefined, attribute and item lookups as Jinja's sandbox does them, calls of functions,
// filters and tests. The tree walker (engine.ts) builds on it.
import { RenderBudget, type RenderLimits, type Room } from './budget.ts';
import { TemplateError, typeError, undefinedError } from './errors.ts';
import type { Zone } from './zones.ts';
import { builtinAttr } from './builtins.ts';
import { RenderInfo, type Library, type RenderEnv, type World } from './render-env.ts';
import { Callable, MISSING, PyObject, PyRange, Undefined, dictGet, dictKeys, dictSize, isDict, numberOf, pyEq, pyType, repr, str, strRepr, truthy, typeRepr } from './values.ts';

/** The keyword arguments of a call that passes none: one shared map, which no function changes. */
export const NO_KEYWORDS: Map<string, unknown> = new Map();

/** One render's state and its operations on values, as functions, filters and tests see them. */
export class RenderContext implements RenderEnv {
  readonly info = new RenderInfo();
  protected readonly budget: RenderBudget;
  readonly localZone: Zone;

  constructor(
    readonly template: string,
    readonly world: World,
    protected readonly library: Library,
    readonly strict: boolean,
    protected readonly limits: RenderLimits,
    private readonly log: (level: 'WARNING' | 'ERROR', message: string) => void,
    /** set when the caller's own timeout is shorter than the limit: its error is the caller's */
    timeoutError?: () => TemplateError,
  ) {
    this.budget = new RenderBudget(limits, timeoutError);
    this.localZone = world.zone;
  }

  // ---- Ctx ----

  collectEntity(entityId: string): void {
    this.info.entities.add(entityId);
  }

  charge(units: number): void {
    this.budget.charge(units);
  }

  report(level: 'WARNING' | 'ERROR', message: string): void {
    this.log(level, message);
  }

  chargeText(chars: number): void {
    this.budget.chargeText(chars);
  }

  checkSize(size: number): void {
    this.budget.checkSize(size);
  }

  ensureRoom(size: number, room?: Room): void {
    this.budget.ensureRoom(size, room);
  }

  // ---- Undefined, as the original's logging Undefined treats it ----

  /** Printing, iterating or testing an Undefined: a warning, or an error when strict. */
  private softUndefined(undefinedValue: Undefined): void {
    if (this.strict) throw undefinedError(undefinedValue.message);
    this.report('WARNING', undefinedValue.message);
  }

  /** Reading an attribute of an Undefined or calling one: logged, then raised. */
  protected hardUndefined(undefinedValue: Undefined): never {
    if (!this.strict) this.report('ERROR', undefinedValue.message);
    throw undefinedError(undefinedValue.message);
  }

  truth(x: unknown): boolean {
    if (x instanceof Undefined) {
      this.softUndefined(x);
      return false;
    }
    return truthy(x);
  }

  print(x: unknown): string {
    if (x instanceof Undefined) {
      this.softUndefined(x);
      return '';
    }
    return str(x);
  }

  iterate(x: unknown): unknown[] {
    if (Array.isArray(x)) return x;
    if (typeof x === 'string') {
      this.ensureRoom(x.length);
      return Array.from(x);
    }
    if (x instanceof Undefined) {
      this.softUndefined(x);
      return [];
    }
    if (isDict(x)) {
      this.ensureRoom(dictSize(x));
      return dictKeys(x);
    }
    if (x instanceof PyObject) {
      const items = x.iterate(this);
      if (items) return items;
    }
    throw typeError(`'${pyType(x)}' object is not iterable`);
  }

  // ---- lookups ----

  /** Jinja's `obj.name`: the attribute, then the item. */
  getattr(obj: unknown, name: string): unknown {
    if (obj instanceof Undefined) this.hardUndefined(obj);
    const attribute = this.attribute(obj, name);
    if (attribute !== MISSING) return attribute;
    const item = this.itemOf(obj, name);
    if (item !== MISSING) return item;
    return new Undefined(`${strRepr(typeRepr(obj))} has no attribute ${strRepr(name)}`);
  }

  /** Jinja's `obj[key]`: the item, then (for a string key) the attribute. */
  getitem(obj: unknown, key: unknown): unknown {
    if (obj instanceof Undefined) this.hardUndefined(obj);
    const item = this.itemOf(obj, key);
    if (item !== MISSING) return item;
    if (typeof key === 'string') {
      const attribute = this.attribute(obj, key);
      if (attribute !== MISSING) return attribute;
      return new Undefined(`${strRepr(typeRepr(obj))} has no attribute ${strRepr(key)}`);
    }
    return new Undefined(`${typeRepr(obj)} has no element ${repr(key)}`);
  }

  private attribute(obj: unknown, name: string): unknown {
    // the sandbox hides every private attribute
    if (name.startsWith('_')) return MISSING;
    if (obj instanceof PyObject) return obj.attr(name, this);
    return builtinAttr(this, obj, name);
  }

  private itemOf(obj: unknown, key: unknown): unknown {
    if (Array.isArray(obj) || typeof obj === 'string') {
      if (typeof key !== 'number' && typeof key !== 'boolean') return MISSING;
      const given = numberOf(key);
      const index = given < 0 ? obj.length + given : given;
      if (index < 0 || index >= obj.length) return MISSING;
      return typeof obj === 'string' ? obj[index] : obj[index];
    }
    if (isDict(obj)) return dictGet(obj, key);
    if (obj instanceof PyObject) return obj.item(key, this);
    return MISSING;
  }

  // ---- calls ----

  call(fn: unknown, args: unknown[], kwargs: Map<string, unknown> = NO_KEYWORDS): unknown {
    if (fn instanceof Callable) return fn.call(this, args, kwargs);
    if (fn instanceof Undefined) this.hardUndefined(fn);
    throw typeError(`'${pyType(fn)}' object is not callable`);
  }

  filter(name: string, value: unknown, args: unknown[], kwargs: Map<string, unknown> = NO_KEYWORDS): unknown {
    const filter = this.library.filters.get(name);
    if (!filter) throw new TemplateError('TemplateAssertionError', `No filter named '${name}'.`);
    return filter(this, value, args, kwargs);
  }

  test(name: string, value: unknown, args: unknown[], kwargs: Map<string, unknown> = NO_KEYWORDS): boolean {
    const test = this.library.tests.get(name);
    if (!test) throw new TemplateError('TemplateAssertionError', `No test named '${name}'.`);
    return test(this, value, args, kwargs);
  }

  /** Python's `needle in haystack`. */
  contains(haystack: unknown, needle: unknown): boolean {
    if (typeof haystack === 'string') {
      if (typeof needle !== 'string') throw typeError(`'in <string>' requires string as left operand, not ${pyType(needle)}`);
      this.chargeText(haystack.length);
      return haystack.includes(needle);
    }
    if (isDict(haystack)) return dictGet(haystack, needle) !== MISSING;
    if (haystack instanceof PyRange) return typeof needle === 'number' && haystack.iterate(this).includes(needle);
    const items = this.iterate(haystack);
    this.charge(items.length);
    return items.some((item) => pyEq(item, needle));
  }
}
