// Renders a parsed template: an evaluator over @huggingface/jinja's syntax tree with Python's
// value semantics (values.ts) and every step counted. A render stops with a clear error when it
// passes its time, its step budget, its output size or its nesting depth, so no template can
// hold the event loop or the heap. What the values and the library see of a render (lookups,
// calls, truth, printing) is render-context.ts; this is the walk over statements and expressions.
import { NEGATED_TEST_PREFIX, TEST_PREFIX, type Node } from './compile.ts';
import { RenderLimitError, TemplateError, typeError, undefinedError } from './errors.ts';
import { LoopContext, type Sequence } from './loop-context.ts';
import { binaryOp, unaryMinus } from './operators.ts';
import { NO_KEYWORDS, RenderContext } from './render-context.ts';
import { Callable, MISSING, Namespace, PyRange, Undefined, dictEntries, dictSize, float, isDict, isNumber, isTuple, pyCompare, pyEq, pyType, tuple, typeRepr } from './values.ts';

class BreakSignal {}
class ContinueSignal {}
const BREAK = new BreakSignal();
const CONTINUE = new ContinueSignal();

/** Variables of a block; loops, macros and call blocks open a new one. */
class Scope {
  readonly vars = new Map<string, unknown>();
  constructor(readonly parent?: Scope) {}
  lookup(name: string): unknown {
    for (let scope: Scope | undefined = this; scope; scope = scope.parent) if (scope.vars.has(name)) return scope.vars.get(name);
    return MISSING;
  }
}

/** Output of a block, refusing to grow past its limit. */
class Sink {
  text = '';
  /** `refuse` throws when the text would be `length` characters long */
  constructor(private readonly refuse: (length: number) => void) {}
  write(text: string): void {
    this.refuse(this.text.length + text.length);
    this.text += text;
  }
}

const LITERALS: Record<string, unknown> = { true: true, false: false, none: null, True: true, False: false, None: null };

/** One render of one template: the walk over its statements and expressions. */
export class Render extends RenderContext {
  private depth = 0;

  /** Renders the program; the text, or a TemplateError. */
  run(program: Node, variables: Map<string, unknown>): string {
    const root = new Scope();
    for (const [name, value] of variables) root.vars.set(name, value);
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

  private sequence(walked: unknown): Sequence {
    if (walked instanceof PyRange) return { length: walked.size, at: (index) => walked.at(index) };
    const items = this.iterate(walked);
    return { length: items.length, at: (index) => items[index] };
  }

  // ---- lookups ----

  private lookup(name: string, scope: Scope): unknown {
    const local = scope.lookup(name);
    if (local !== MISSING) return local;
    if (name in LITERALS) return LITERALS[name];
    const global = this.library.globals.get(name);
    if (global !== undefined) return global;
    return new Undefined(`'${name}' is undefined`);
  }

  private args(nodes: Node[], scope: Scope): [unknown[], Map<string, unknown>] {
    const positional: unknown[] = [];
    // most calls pass no keyword: they share one empty map, which no function changes
    let keywords = NO_KEYWORDS;
    for (const arg of nodes) {
      if (keywords === NO_KEYWORDS && (arg.type === 'KeywordArgumentExpression' || arg.type === 'KeywordSpreadExpression')) keywords = new Map();
      if (arg.type === 'KeywordArgumentExpression') keywords.set(arg.key.value, this.eval(arg.value, scope));
      else if (arg.type === 'SpreadExpression') {
        const items = this.iterate(this.eval(arg.argument, scope));
        this.ensureRoom(positional.length + items.length);
        // one at a time: spreading a long list into push() overflows the stack
        for (const item of items) positional.push(item);
      }
      else if (arg.type === 'KeywordSpreadExpression') {
        const spread = this.eval(arg.argument, scope);
        if (!isDict(spread)) throw typeError(`argument after ** must be a mapping, not ${pyType(spread)}`);
        this.ensureRoom(dictSize(spread));
        for (const [key, value] of dictEntries(spread)) keywords.set(String(key), value);
      } else positional.push(this.eval(arg, scope));
    }
    return [positional, keywords];
  }

  // ---- statements ----

  private block(statements: Node[], scope: Scope, sink: Sink): void {
    for (const statement of statements) this.exec(statement, scope, sink);
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
      names.forEach((name, index) => this.assign(name, items[index], scope));
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
      for (let index = 0; index < all.length; index++) {
        this.tick();
        const item = all.at(index);
        this.assign(node.loopvar, item, loopScope);
        if (this.truth(this.eval(test!, loopScope))) kept.push(item);
      }
      seq = { length: kept.length, at: (index) => kept[index] };
    } else {
      seq = this.sequence(this.eval(node.iterable, scope));
    }
    if (seq.length === 0) {
      this.block(node.defaultBlock, loopScope, sink);
      return;
    }
    const loop = new LoopContext({ length: seq.length }, (index) => seq.at(index));
    loopScope.vars.set('loop', loop);
    for (let index = 0; index < seq.length; index++) {
      this.tick();
      loop.index0 = index;
      this.assign(node.loopvar, seq.at(index), loopScope);
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
        params.forEach((param, index) => {
          const pname: string = param.type === 'Identifier' ? param.value : param.key.value;
          let value: unknown = index < args.length ? args[index] : MISSING;
          if (value === MISSING && rest.has(pname)) value = rest.get(pname);
          rest.delete(pname);
          if (value === MISSING) value = param.type === 'KeywordArgumentExpression' ? this.eval(param.value, scope) : new Undefined(`parameter '${pname}' was not provided`);
          scope.vars.set(pname, value);
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
        return node.value.map((item: Node) => this.eval(item, scope));
      case 'TupleLiteral':
        return tuple(node.value.map((item: Node) => this.eval(item, scope)));
      case 'ObjectLiteral': {
        const dict = new Map<unknown, unknown>();
        for (const [key, value] of node.value as Map<Node, Node>) dict.set(this.eval(key, scope), this.eval(value, scope));
        return dict;
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
        const operand = this.eval(node.argument, scope);
        if (node.operator.value === 'not') return !this.truth(operand);
        if (operand instanceof Undefined) throw undefinedError(operand.message);
        if (node.operator.value === '-') return unaryMinus(operand);
        if (isNumber(operand)) return typeof operand === 'boolean' ? Number(operand) : operand;
        throw typeError(`bad operand type for unary +: '${pyType(operand)}'`);
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
    const bound = (given: Node | undefined) => {
      if (!given) return undefined;
      const value = this.eval(given, scope);
      if (value === null) return undefined;
      if (typeof value !== 'number') throw typeError('slice indices must be integers or None or have an __index__ method');
      return value;
    };
    const start = bound(node.start);
    const stop = bound(node.stop);
    const step = bound(node.step) ?? 1;
    if (step === 0) throw new TemplateError('ValueError', 'slice step cannot be zero');
    const items = typeof obj === 'string' || obj instanceof PyRange ? this.iterate(obj) : Array.isArray(obj) ? obj : undefined;
    if (!items) return new Undefined(`${typeRepr(obj)} has no element slice`);
    const length = items.length;
    const clamp = (index: number, lo: number, hi: number) => Math.min(Math.max(index < 0 ? index + length : index, lo), hi);
    const [first, end] =
      step > 0
        ? [start === undefined ? 0 : clamp(start, 0, length), stop === undefined ? length : clamp(stop, 0, length)]
        : [start === undefined ? length - 1 : clamp(start, -1, length - 1), stop === undefined ? -1 : clamp(stop, -1, length - 1)];
    const count = Math.max(0, Math.ceil((end - first) / step));
    this.ensureRoom(count);
    const out: unknown[] = new Array(count);
    for (let taken = 0; taken < count; taken++) out[taken] = items[first + taken * step];
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
        const order = pyCompare(left, right, op);
        return op === '<' ? order < 0 : op === '>' ? order > 0 : op === '<=' ? order <= 0 : order >= 0;
      }
      case 'in':
      case 'not in':
        return this.contains(right, left) === (op === 'in');
      case '~': {
        const leftText = this.print(left);
        const rightText = this.print(right);
        this.ensureRoom(leftText.length + rightText.length, 'text');
        return leftText + rightText;
      }
    }
    if (left instanceof Undefined) throw undefinedError(left.message);
    if (right instanceof Undefined) throw undefinedError(right.message);
    return binaryOp(this, op, left, right);
  }
}
