import { NEGATED_TEST_PREFIX, TEST_PREFIX, type Node } from './compile.ts';
import { RenderLimitError, TemplateError, typeError, undefinedError } from './errors.ts';
import { RenderBudget, type RenderLimits, type Room } from './budget.ts';
import type { Zone } from './datetime.ts';
import {
  Callable,
  Float,
  MISSING,
  Namespace,
  PyObject,
  PyRange,
  Undefined,
  dictEntries,
  dictGet,
  dictKeys,
  dictSize,
  float,
  isDict,
  isNumber,
  isTuple,
  numberOf,
  pyCompare,
  pyEq,
  pyType,
  repr,
  str,
  strRepr,
  truthy,
  tuple,
  typeRepr,
  type Ctx,
} from './values.ts';
import { binaryOp, unaryMinus } from './operators.ts';
import { builtinAttr } from './builtins.ts';

/**
 * Renders a parsed template: an evaluator over @huggingface/jinja's syntax tree with Python's
 * value semantics (values.ts) and every step counted. A render stops with a clear error when it
 * passes its time, its step budget, its output size or its nesting depth, so no template can
 * hold the event loop or the heap.
 */

export type FilterFn = (r: RenderEnv, value: unknown, args: unknown[], kwargs: Map<string, unknown>) => unknown;
export type TestFn = (r: RenderEnv, value: unknown, args: unknown[], kwargs: Map<string, unknown>) => boolean;

/** The functions, filters and tests a template can name. */
export interface Library {
  globals: Map<string, unknown>;
  filters: Map<string, FilterFn>;
  tests: Map<string, TestFn>;
}

export { DEFAULT_LIMITS, type RenderLimits } from './budget.ts';

/** What a render read: the entities, domains and whole-state iterations that should re-render it. */
export class RenderInfo {
  readonly entities = new Set<string>();
  readonly domains = new Set<string>();
  /** domains whose entity count was read: an entity added or removed there re-renders */
  readonly domainsLifecycle = new Set<string>();
  allStates = false;
  allStatesLifecycle = false;
  hasTime = false;
}

/** What the home offers a render; see states.ts for the parts. */
export interface World {
  states: import('./states.ts').StateSource;
  home: import('./states.ts').TemplateHome;
  /** epoch ms */
  now(): number;
  zone: Zone;
  location: { latitude: number; longitude: number; metric: boolean };
}

/** The render as functions and filters see it. */
export interface RenderEnv extends Ctx {
  readonly template: string;
  readonly info: RenderInfo;
  readonly world: World;
  call(fn: unknown, args: unknown[], kwargs?: Map<string, unknown>): unknown;
  getattr(obj: unknown, name: string): unknown;
  getitem(obj: unknown, key: unknown): unknown;
  contains(haystack: unknown, needle: unknown): boolean;
  filter(name: string, value: unknown, args: unknown[], kwargs?: Map<string, unknown>): unknown;
  test(name: string, value: unknown, args: unknown[]): boolean;
  iterate(x: unknown): unknown[];
  truth(x: unknown): boolean;
  print(x: unknown): string;
  /** the work of reading or copying `chars` characters of text */
  chargeText(chars: number): void;
  /** refuses a value of `size` characters or items past the value limit */
  checkSize(size: number): void;
  /** the guard before building a value of `size` items or characters: refused past the limit, its building counted */
  ensureRoom(size: number, room?: Room): void;
}

class BreakSignal {}
class ContinueSignal {}
const BREAK = new BreakSignal();
const CONTINUE = new ContinueSignal();

/** Variables of a block; loops, macros and call blocks open a new one. */
class Scope {
  readonly vars = new Map<string, unknown>();
  constructor(readonly parent?: Scope) {}
  lookup(name: string): unknown {
    for (let s: Scope | undefined = this; s; s = s.parent) if (s.vars.has(name)) return s.vars.get(name);
    return MISSING;
  }
}

/** Output of a block, refusing to grow past its limit. */
class Sink {
  text = '';
  /** `refuse` throws when the text would be `length` characters long */
  constructor(private readonly refuse: (length: number) => void) {}
  write(s: string): void {
    this.refuse(this.text.length + s.length);
    this.text += s;
  }
}

const NO_KEYWORDS: Map<string, unknown> = new Map();

const LITERALS: Record<string, unknown> = { true: true, false: false, none: null, True: true, False: false, None: null };

/** Jinja's `loop` variable. */
class LoopContext extends PyObject {
  readonly pyType = 'LoopContext';
  override get typeRepr() {
    return 'jinja2.runtime.LoopContext object';
  }
  index0 = 0;
  private last: unknown = MISSING;
  constructor(readonly items: ArrayLike<unknown> & { at?: unknown }, private readonly itemAt: (i: number) => unknown) {
    super();
  }
  override attr(name: string): unknown {
    const n = this.items.length;
    const i = this.index0;
    switch (name) {
      case 'index':
        return i + 1;
      case 'index0':
        return i;
      case 'revindex':
        return n - i;
      case 'revindex0':
        return n - i - 1;
      case 'first':
        return i === 0;
      case 'last':
        return i === n - 1;
      case 'length':
        return n;
      case 'depth':
        return 1;
      case 'depth0':
        return 0;
      case 'previtem':
        return i > 0 ? this.itemAt(i - 1) : new Undefined('there is no previous item');
      case 'nextitem':
        return i < n - 1 ? this.itemAt(i + 1) : new Undefined('there is no next item');
      case 'cycle':
        return new Callable('cycle', (_c, args) => {
          if (!args.length) throw typeError('no items for cycling given');
          return args[i % args.length];
        });
      case 'changed':
        return new Callable('changed', (_c, args) => {
          const value = args.length === 1 ? args[0] : tuple(args);
          if (this.last !== MISSING && pyEq(this.last, value)) return false;
          this.last = value;
          return true;
        });
    }
    return MISSING;
  }
  repr(): string {
    return `<LoopContext ${this.index0 + 1}/${this.items.length}>`;
  }
}

/** A lazily indexed view of what a for loop walks. */
interface Sequence {
  length: number;
  at(i: number): unknown;
}

/** One render of one template. */
export class Render implements RenderEnv {
  readonly info = new RenderInfo();
  private readonly budget: RenderBudget;
  private depth = 0;
  readonly localZone: Zone;

  constructor(
    readonly template: string,
    readonly world: World,
    private readonly library: Library,
    readonly strict: boolean,
    private readonly limits: RenderLimits,
    private readonly log: (level: 'WARNING' | 'ERROR', message: string) => void,
    /** set when the caller's own timeout is shorter than the limit: its error is the caller's */
    timeoutError?: () => TemplateError,
  ) {
    this.budget = new RenderBudget(limits, timeoutError);
    this.localZone = world.zone;
  }

  /** Renders the program; the text, or a TemplateError. */
  run(program: Node, variables: Map<string, unknown>): string {
    const root = new Scope();
    for (const [k, v] of variables) root.vars.set(k, v);
    const sink = new Sink((length) => {
      if (length > this.limits.outputChars) throw new RenderLimitError('', `Template output exceeded maximum size of ${this.limits.outputChars} characters`);
    });
    try {
      this.budget.run(() => this.block(program.body, new Scope(root), sink));
    } catch (err) {
      if (err instanceof TemplateError) throw err;
      if (err instanceof BreakSignal || err instanceof ContinueSignal) throw new TemplateError('TemplateSyntaxError', 'break or continue outside a loop');
      // only the stack's own overflow: any other RangeError is a fault to be seen as one
      if (err instanceof RangeError && /call stack/i.test(err.message)) throw new RenderLimitError('RecursionError', 'maximum recursion depth exceeded');
      throw err;
    }
    return sink.text;
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
  private softUndefined(u: Undefined): void {
    if (this.strict) throw undefinedError(u.message);
    this.report('WARNING', u.message);
  }

  /** Reading an attribute of an Undefined or calling one: logged, then raised. */
  private hardUndefined(u: Undefined): never {
    if (!this.strict) this.report('ERROR', u.message);
    throw undefinedError(u.message);
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

  private sequence(x: unknown): Sequence {
    if (x instanceof PyRange) return { length: x.size, at: (i) => x.at(i) };
    const items = this.iterate(x);
    return { length: items.length, at: (i) => items[i] };
  }

  // ---- lookups ----

  /** Jinja's `obj.name`: the attribute, then the item. */
  getattr(obj: unknown, name: string): unknown {
    if (obj instanceof Undefined) this.hardUndefined(obj);
    const a = this.attribute(obj, name);
    if (a !== MISSING) return a;
    const i = this.itemOf(obj, name);
    if (i !== MISSING) return i;
    return new Undefined(`${strRepr(typeRepr(obj))} has no attribute ${strRepr(name)}`);
  }

  /** Jinja's `obj[key]`: the item, then (for a string key) the attribute. */
  getitem(obj: unknown, key: unknown): unknown {
    if (obj instanceof Undefined) this.hardUndefined(obj);
    const i = this.itemOf(obj, key);
    if (i !== MISSING) return i;
    if (typeof key === 'string') {
      const a = this.attribute(obj, key);
      if (a !== MISSING) return a;
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
      const n = numberOf(key);
      const i = n < 0 ? obj.length + n : n;
      if (i < 0 || i >= obj.length) return MISSING;
      return typeof obj === 'string' ? obj[i] : obj[i];
    }
    if (isDict(obj)) return dictGet(obj, key);
    if (obj instanceof PyObject) return obj.item(key, this);
    return MISSING;
  }

  private lookup(name: string, scope: Scope): unknown {
    const v = scope.lookup(name);
    if (v !== MISSING) return v;
    if (name in LITERALS) return LITERALS[name];
    const g = this.library.globals.get(name);
    if (g !== undefined) return g;
    return new Undefined(`'${name}' is undefined`);
  }

  // ---- calls ----

  call(fn: unknown, args: unknown[], kwargs: Map<string, unknown> = NO_KEYWORDS): unknown {
    if (fn instanceof Callable) return fn.call(this, args, kwargs);
    if (fn instanceof Undefined) this.hardUndefined(fn);
    throw typeError(`'${pyType(fn)}' object is not callable`);
  }

  filter(name: string, value: unknown, args: unknown[], kwargs: Map<string, unknown> = NO_KEYWORDS): unknown {
    const f = this.library.filters.get(name);
    if (!f) throw new TemplateError('TemplateAssertionError', `No filter named '${name}'.`);
    return f(this, value, args, kwargs);
  }

  test(name: string, value: unknown, args: unknown[], kwargs: Map<string, unknown> = NO_KEYWORDS): boolean {
    const t = this.library.tests.get(name);
    if (!t) throw new TemplateError('TemplateAssertionError', `No test named '${name}'.`);
    return t(this, value, args, kwargs);
  }

  private args(nodes: Node[], scope: Scope): [unknown[], Map<string, unknown>] {
    const positional: unknown[] = [];
    // most calls pass no keyword: they share one empty map, which no function changes
    let keywords = NO_KEYWORDS;
    for (const a of nodes) {
      if (keywords === NO_KEYWORDS && (a.type === 'KeywordArgumentExpression' || a.type === 'KeywordSpreadExpression')) keywords = new Map();
      if (a.type === 'KeywordArgumentExpression') keywords.set(a.key.value, this.eval(a.value, scope));
      else if (a.type === 'SpreadExpression') {
        const items = this.iterate(this.eval(a.argument, scope));
        this.ensureRoom(positional.length + items.length);
        // one at a time: spreading a long list into push() overflows the stack
        for (const item of items) positional.push(item);
      }
      else if (a.type === 'KeywordSpreadExpression') {
        const d = this.eval(a.argument, scope);
        if (!isDict(d)) throw typeError(`argument after ** must be a mapping, not ${pyType(d)}`);
        this.ensureRoom(dictSize(d));
        for (const [k, v] of dictEntries(d)) keywords.set(String(k), v);
      } else positional.push(this.eval(a, scope));
    }
    return [positional, keywords];
  }

  // ---- statements ----

  private block(statements: Node[], scope: Scope, sink: Sink): void {
    for (const s of statements) this.exec(s, scope, sink);
  }

  private exec(node: Node, scope: Scope, sink: Sink): void {
    this.tick();
    switch (node.type) {
      case 'Comment':
        return;
      case 'Set':
        return this.execSet(node, scope);
      case 'If':
        return this.block(this.truth(this.eval(node.test, scope)) ? node.body : node.alternate, scope, sink);
      case 'For':
        return this.execFor(node, scope, sink);
      case 'Macro':
        scope.vars.set(node.name.value, this.macro(node.name.value, node.args, node.body, scope));
        return;
      case 'CallStatement':
        return this.execCall(node, scope, sink);
      case 'FilterStatement': {
        const inner = this.blockText(node.body, scope);
        return sink.write(this.print(this.applyFilter(inner, node.filter, scope)));
      }
      case 'Break':
        throw BREAK;
      case 'Continue':
        throw CONTINUE;
      default:
        return sink.write(this.print(this.eval(node, scope)));
    }
  }

  private blockText(statements: Node[], scope: Scope): string {
    const sink = new Sink((length) => this.budget.checkSize(length));
    this.block(statements, scope, sink);
    return sink.text;
  }

  private execSet(node: Node, scope: Scope): void {
    const value = node.value ? this.eval(node.value, scope) : this.blockText(node.body, scope);
    this.assign(node.assignee, value, scope);
  }

  private assign(target: Node, value: unknown, scope: Scope): void {
    if (target.type === 'Identifier') {
      scope.vars.set(target.value, value);
      return;
    }
    if (target.type === 'TupleLiteral') {
      const items = this.iterate(value);
      const names: Node[] = target.value;
      if (items.length !== names.length) {
        throw new TemplateError('ValueError', items.length < names.length ? `not enough values to unpack (expected ${names.length}, got ${items.length})` : `too many values to unpack (expected ${names.length})`);
      }
      names.forEach((n, i) => this.assign(n, items[i], scope));
      return;
    }
    if (target.type === 'MemberExpression' && !target.computed) {
      const obj = this.eval(target.object, scope);
      if (!(obj instanceof Namespace)) throw new TemplateError('TemplateRuntimeError', 'cannot assign attribute on non-namespace object');
      obj.values.set(target.property.value, value);
      return;
    }
    throw new TemplateError('TemplateSyntaxError', "can't assign to this expression");
  }

  private execFor(node: Node, scope: Scope, sink: Sink): void {
    const loopScope = new Scope(scope);
    let seq: Sequence;
    let test: Node | undefined;
    if (node.iterable.type === 'SelectExpression') {
      test = node.iterable.test;
      const all = this.sequence(this.eval(node.iterable.lhs, loopScope));
      // the filter runs first: loop.length counts what passes it
      const kept: unknown[] = [];
      for (let i = 0; i < all.length; i++) {
        this.tick();
        const item = all.at(i);
        this.assign(node.loopvar, item, loopScope);
        if (this.truth(this.eval(test!, loopScope))) kept.push(item);
      }
      seq = { length: kept.length, at: (i) => kept[i] };
    } else {
      seq = this.sequence(this.eval(node.iterable, scope));
    }
    if (seq.length === 0) {
      this.block(node.defaultBlock, loopScope, sink);
      return;
    }
    const loop = new LoopContext({ length: seq.length }, (i) => seq.at(i));
    loopScope.vars.set('loop', loop);
    for (let i = 0; i < seq.length; i++) {
      this.tick();
      loop.index0 = i;
      this.assign(node.loopvar, seq.at(i), loopScope);
      try {
        this.block(node.body, loopScope, sink);
      } catch (signal) {
        if (signal === CONTINUE) continue;
        if (signal === BREAK) break;
        throw signal;
      }
    }
  }

  /** A macro: a callable binding its parameters in a scope of its own on each call. */
  private macro(name: string, params: Node[], body: Node[], defined: Scope): Callable {
    return new Callable(name, (_ctx, args, kwargs) => {
      const caller = this.pendingCaller;
      this.pendingCaller = undefined;
      if (++this.depth > this.limits.depth) throw new RenderLimitError('RecursionError', `maximum recursion depth exceeded (${this.limits.depth} nested macro calls)`);
      try {
        const scope = new Scope(defined);
        const rest = new Map(kwargs);
        params.forEach((p, i) => {
          const pname: string = p.type === 'Identifier' ? p.value : p.key.value;
          let v: unknown = i < args.length ? args[i] : MISSING;
          if (v === MISSING && rest.has(pname)) v = rest.get(pname);
          rest.delete(pname);
          if (v === MISSING) v = p.type === 'KeywordArgumentExpression' ? this.eval(p.value, scope) : new Undefined(`parameter '${pname}' was not provided`);
          scope.vars.set(pname, v);
        });
        scope.vars.set('varargs', args.slice(params.length));
        scope.vars.set('kwargs', rest);
        if (caller) scope.vars.set('caller', caller);
        return this.blockText(body, scope);
      } finally {
        this.depth--;
      }
    });
  }

  private execCall(node: Node, scope: Scope, sink: Sink): void {
    const caller = this.macro('caller', node.callerArgs ?? [], node.body, scope);
    const fn = this.eval(node.call.callee, scope);
    const [args, kwargs] = this.args(node.call.args, scope);
    // the macro called takes `caller` into its own scope as it starts
    this.pendingCaller = caller;
    try {
      sink.write(this.print(this.call(fn, args, kwargs)));
    } finally {
      this.pendingCaller = undefined;
    }
  }

  private pendingCaller: Callable | undefined;

  // ---- expressions ----

  private tick(): void {
    this.budget.tick();
  }

  private eval(node: Node, scope: Scope): unknown {
    this.tick();
    switch (node.type) {
      case 'StringLiteral':
        return node.value;
      case 'IntegerLiteral':
        return node.value;
      case 'FloatLiteral':
        return float(node.value);
      case 'Identifier':
        return this.lookup(node.value, scope);
      case 'ArrayLiteral':
        return node.value.map((n: Node) => this.eval(n, scope));
      case 'TupleLiteral':
        return tuple(node.value.map((n: Node) => this.eval(n, scope)));
      case 'ObjectLiteral': {
        const m = new Map<unknown, unknown>();
        for (const [k, v] of node.value as Map<Node, Node>) m.set(this.eval(k, scope), this.eval(v, scope));
        return m;
      }
      case 'MemberExpression':
        return this.member(node, scope);
      case 'CallExpression': {
        const fn = this.eval(node.callee, scope);
        const [args, kwargs] = this.args(node.args, scope);
        return this.call(fn, args, kwargs);
      }
      case 'FilterExpression':
        return this.applyFilter(this.eval(node.operand, scope), node.filter, scope);
      case 'BinaryExpression':
        return this.binary(node, scope);
      case 'UnaryExpression': {
        const v = this.eval(node.argument, scope);
        if (node.operator.value === 'not') return !this.truth(v);
        if (v instanceof Undefined) throw undefinedError(v.message);
        if (node.operator.value === '-') return unaryMinus(v);
        if (isNumber(v)) return typeof v === 'boolean' ? Number(v) : v;
        throw typeError(`bad operand type for unary +: '${pyType(v)}'`);
      }
      case 'Ternary':
        return this.truth(this.eval(node.condition, scope)) ? this.eval(node.trueExpr, scope) : this.eval(node.falseExpr, scope);
      case 'SelectExpression':
        return this.truth(this.eval(node.test, scope)) ? this.eval(node.lhs, scope) : new Undefined('the inline if-expression evaluated to false and no else section was defined.');
      case 'TestExpression':
        return node.negate !== this.test(node.test.value, this.eval(node.operand, scope), []);
      default:
        throw new TemplateError('TemplateSyntaxError', `unexpected ${node.type}`);
    }
  }

  private member(node: Node, scope: Scope): unknown {
    const obj = this.eval(node.object, scope);
    if (!node.computed) {
      const prop = node.property;
      return prop.type === 'IntegerLiteral' ? this.getitem(obj, prop.value) : this.getattr(obj, prop.value);
    }
    if (node.property.type === 'SliceExpression') return this.slice(obj, node.property, scope);
    return this.getitem(obj, this.eval(node.property, scope));
  }

  private slice(obj: unknown, node: Node, scope: Scope): unknown {
    if (obj instanceof Undefined) this.hardUndefined(obj);
    const bound = (n: Node | undefined) => {
      if (!n) return undefined;
      const v = this.eval(n, scope);
      if (v === null) return undefined;
      if (typeof v !== 'number') throw typeError('slice indices must be integers or None or have an __index__ method');
      return v;
    };
    const start = bound(node.start);
    const stop = bound(node.stop);
    const step = bound(node.step) ?? 1;
    if (step === 0) throw new TemplateError('ValueError', 'slice step cannot be zero');
    const items = typeof obj === 'string' || obj instanceof PyRange ? this.iterate(obj) : Array.isArray(obj) ? obj : undefined;
    if (!items) return new Undefined(`${typeRepr(obj)} has no element slice`);
    const n = items.length;
    const clamp = (v: number, lo: number, hi: number) => Math.min(Math.max(v < 0 ? v + n : v, lo), hi);
    const [first, end] =
      step > 0
        ? [start === undefined ? 0 : clamp(start, 0, n), stop === undefined ? n : clamp(stop, 0, n)]
        : [start === undefined ? n - 1 : clamp(start, -1, n - 1), stop === undefined ? -1 : clamp(stop, -1, n - 1)];
    const count = Math.max(0, Math.ceil((end - first) / step));
    this.ensureRoom(count);
    const out: unknown[] = new Array(count);
    for (let k = 0; k < count; k++) out[k] = items[first + k * step];
    if (typeof obj === 'string') return out.join('');
    return isTuple(obj) ? tuple(out) : out;
  }

  private applyFilter(value: unknown, filter: Node, scope: Scope): unknown {
    const name: string = filter.type === 'Identifier' ? filter.value : filter.callee.value;
    const [args, kwargs] = filter.type === 'Identifier' ? [[], NO_KEYWORDS] : this.args(filter.args, scope);
    if (name.startsWith(NEGATED_TEST_PREFIX)) return !this.test(name.slice(NEGATED_TEST_PREFIX.length), value, args, kwargs);
    if (name.startsWith(TEST_PREFIX)) return this.test(name.slice(TEST_PREFIX.length), value, args, kwargs);
    return this.filter(name, value, args, kwargs);
  }

  private binary(node: Node, scope: Scope): unknown {
    const op: string = node.operator.value;
    const left = this.eval(node.left, scope);
    if (op === 'and') return this.truth(left) ? this.eval(node.right, scope) : left;
    if (op === 'or') return this.truth(left) ? left : this.eval(node.right, scope);
    const right = this.eval(node.right, scope);
    switch (op) {
      case '==':
      case '!=': {
        if (this.strict && (left instanceof Undefined || right instanceof Undefined)) throw undefinedError((left instanceof Undefined ? left : (right as Undefined)).message);
        return pyEq(left, right) === (op === '==');
      }
      case '<':
      case '>':
      case '<=':
      case '>=': {
        if (left instanceof Undefined) throw undefinedError(left.message);
        if (right instanceof Undefined) throw undefinedError(right.message);
        const c = pyCompare(left, right, op);
        return op === '<' ? c < 0 : op === '>' ? c > 0 : op === '<=' ? c <= 0 : c >= 0;
      }
      case 'in':
      case 'not in':
        return this.contains(right, left) === (op === 'in');
      case '~': {
        const a = this.print(left);
        const b = this.print(right);
        this.ensureRoom(a.length + b.length, 'text');
        return a + b;
      }
    }
    if (left instanceof Undefined) throw undefinedError(left.message);
    if (right instanceof Undefined) throw undefinedError(right.message);
    return binaryOp(this, op, left, right);
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
    return items.some((x) => pyEq(x, needle));
  }
}

/** A value a caller gives a template (variables), as the template sees it: lists, dicts, numbers. */
export function fromJson(value: unknown): unknown {
  if (typeof value === 'number' && !Number.isInteger(value)) return new Float(value);
  if (Array.isArray(value)) return value.map(fromJson);
  if (value !== null && typeof value === 'object') {
    const m = new Map<unknown, unknown>();
    for (const [k, v] of Object.entries(value)) m.set(k, fromJson(v));
    return m;
  }
  return value;
}


/** A global function of the library: `body` sees the render it is called in. */
export function fn(name: string, body: (r: RenderEnv, args: unknown[], kwargs: Map<string, unknown>) => unknown): Callable {
  return new Callable(name, (ctx, args, kwargs) => body(ctx as RenderEnv, args, kwargs));
}

/** A positional-or-keyword argument of a call, or `fallback` when it was not given. */
export function argument(args: unknown[], kwargs: Map<string, unknown>, index: number, name: string, fallback?: unknown): unknown {
  if (kwargs.has(name)) return kwargs.get(name);
  return index < args.length ? args[index] : fallback;
}
