// Template programs for the template fuzz: random compositions of everything that can make a
// value grow (repeat, pad, indent, join, replace, wrap, format, batch, slice, zip, encode...),
// with sizes around the bounds, inside loops, namespaces, recursive macros and block filters.
import type { Rng } from './rng.ts';

/** Sizes, most of them small enough to compose, some at the value limit (1 MiB), past it, or absurd. */
const SIZES: ReadonlyArray<readonly [number, number]> = [
  [10, 0], [10, 1], [10, 2], [8, 3], [8, 7], [6, 64], [6, 1000], [4, 4096], [3, 65_536], [2, 262_144],
  [2, 1_048_575], [2, 1_048_576], [2, 1_048_577], [2, 10_000_000], [1, 400_000_000], [1, 1e12], [2, -1], [1, -7],
];

const TEXTS = [
  "'x'", "'ab'", "''", "' '", "'x\\n'", "'é'", "'ΐ'", "'ﷺ'", "'😀'", "'<'", "'<!--'", "'&'", "'%c'",
  "'{}'", "'%s'", "'$`'", "'$&'", "'\\\\g<0>'", "'1_'", "'\\x01'", "'a b'", "'\\t'",
];
const PATTERNS = ["'x'", "''", "'(a|b)+'", "'.'", "'()'", "'(?P<n>.)'", "'\\\\s*'", "'[^x]*'"];
const SEPARATORS = ["','", "' '", "'x'", "'ab'", "None"];

/** Names in scope that hold text or a list. */
interface Scope {
  text: string[];
  list: string[];
}

export class ProgramGenerator {
  constructor(private readonly rng: Rng) {}

  size(): string {
    return String(this.rng.weighted(SIZES));
  }

  /** A small count, for loops and recursion (a loop of a million is the step budget's job). */
  count(): string {
    return String(this.rng.weighted([[6, 0], [8, 1], [8, 3], [6, 10], [4, 100], [3, 1000], [2, 100_000]]));
  }

  text(depth: number, scope: Scope): string {
    const r = this.rng;
    if (depth <= 0 || r.chance(0.15)) {
      if (scope.text.length && r.chance(0.5)) return r.pick(scope.text);
      return r.chance(0.5) ? r.pick(TEXTS) : `(${r.pick(TEXTS)} * ${this.size()})`;
    }
    const t = () => this.text(depth - 1, scope);
    const l = () => this.list(depth - 1, scope);
    const n = () => this.size();
    const forms: Array<() => string> = [
      () => `(${t()} * ${n()})`,
      () => `(${n()} * ${t()})`,
      () => `(${t()} ~ ${t()})`,
      () => `(${t()} + ${t()})`,
      () => `${t()}.zfill(${n()})`,
      () => `${t()}.ljust(${n()}, ${r.pick(TEXTS)})`,
      () => `${t()}.rjust(${n()})`,
      () => `${t()}.center(${n()})`,
      () => `(${t()} | center(${n()}))`,
      () => `(${t()} | indent(${n()}, ${r.pick(['true', 'false'])}, ${r.pick(['true', 'false'])}))`,
      () => `(${t()} | indent(${t()}, true))`,
      () => `${t()}.replace(${t()}, ${t()})`,
      () => `(${t()} | replace(${t()}, ${t()}))`,
      () => `(${t()} | wordwrap(${this.count()}, wrapstring=${t()}))`,
      () => `(${t()} | urlencode)`,
      () => `(${t()} | tojson)`,
      () => `(${t()} | to_json(ensure_ascii=${r.pick(['true', 'false'])}))`,
      () => `(${t()} | e)`,
      () => `(${t()} | ${r.pick(['upper', 'lower', 'title', 'capitalize', 'trim', 'striptags', 'reverse', 'base64_encode', 'base64_decode', 'string', 'pprint'])})`,
      () => `${t()}.${r.pick(['upper', 'lower', 'swapcase', 'title', 'capitalize', 'strip', 'casefold'])}()`,
      () => `'{}{}'.format(${t()}, ${t()})`,
      () => `'{:>${n()}}'.format(${t()})`,
      () => `('%s%s' % (${t()}, ${t()}))`,
      () => `('%*s' % (${n()}, ${t()}))`,
      () => `('%-${this.count()}s' % ${t()})`,
      () => `(${t()} | truncate(${n()}, end=${t()}))`,
      () => `${t()}.split(${r.pick(SEPARATORS)}) | join(${t()})`,
      () => `(${t()} | list | join(${t()}))`,
      () => `(${l()} | join(${t()}))`,
      () => `(${l()} | string)`,
      () => `(${l()} | tojson(indent=${r.pick(['None', '2', this.size()])}))`,
      () => `(${t()} | slugify(${t()}))`,
      () => `(${t()} | regex_replace(${r.pick(PATTERNS)}, ${t()}))`,
      () => `${t()}[::${r.pick(['1', '-1', '2', '-3', '1000000'])}]`,
      () => `(0 | timestamp_custom(${t()}))`,
      () => `now().strftime(${t()})`,
      () => `(${t()} | from_json(${t()}) | string)`,
      () => `(${t()} | ${r.pick(['float(0)', 'int(0)', 'bool(0)', 'is_number', 'wordcount', 'length', 'as_timestamp(0)', 'as_datetime(0)'])} | string)`,
      () => `(${l()} | first | string)`,
    ];
    return r.pick(forms)();
  }

  list(depth: number, scope: Scope): string {
    const r = this.rng;
    if (depth <= 0 || r.chance(0.15)) {
      if (scope.list.length && r.chance(0.5)) return r.pick(scope.list);
      return r.pick(['[1]', '[]', "['x', 2]", '[[1], [2, 3]]', '[none, 1.5, true]', `(range(${this.count()}) | list)`, "{'a': [1]} | list", `(${r.pick(TEXTS)} * ${this.size()}) | list`]);
    }
    const t = () => this.text(depth - 1, scope);
    const l = () => this.list(depth - 1, scope);
    const n = () => this.size();
    const forms: Array<() => string> = [
      () => `(${l()} * ${n()})`,
      () => `([${l()}] * ${n()})`,
      () => `(${l()} + ${l()})`,
      () => `(${l()} | batch(${n()}, ${r.pick(['none', "'f'", '0'])}) | list)`,
      () => `(${l()} | slice(${n()}, ${r.pick(['none', "'f'"])}) | list)`,
      () => `(${l()} | unique | list)`,
      () => `(${l()} | sort)`,
      () => `(${l()} | reverse | list)`,
      () => `(${l()} | map('string') | list)`,
      () => `(${l()} | flatten)`,
      () => `(zip(${l()}, ${l()}) | list)`,
      () => `(set(${l()}) | list)`,
      () => `[${l()}, ${l()}]`,
      () => `${l()}[::${r.pick(['1', '-1', '2', '1000000'])}]`,
      () => `(${l()} | select | list)`,
      () => `(dict(zip(${l()}, ${l()})) | list)`,
      () => `${r.pick(['intersect', 'union', 'difference', 'symmetric_difference'])}(${l()}, ${l()})`,
      () => `(${l()} | sum(start=[]))`,
      () => `combine(dict(zip(${l()}, ${l()})), {'a': ${l()}}) | list`,
      () => `(${l()} | groupby(0) | list)`,
      () => `${t()}.split(${r.pick(SEPARATORS)})`,
      () => `${t()}.splitlines()`,
      () => `(${t()} | regex_findall(${r.pick(PATTERNS)}))`,
      () => `(${t()} | list)`,
      () => `[${l()} == ${l()}, ${l()} in ${l()}, ${l()} < ${l()}]`,
      () => `[${t()} | length, ${l()} | length]`,
      () => `${r.pick(['flatten', 'shuffle'])}(${l()})`,
      () => `(${l()} | map('upper') | list)`,
      () => `([${t()}] * ${n()}) | map('upper') | list`,
    ];
    return r.pick(forms)();
  }

  /** A value printed whole, or its length (so that the value limit, not the output's, is what stops it). */
  shown(depth: number, scope: Scope): string {
    const r = this.rng;
    const e = r.chance(0.5) ? this.text(depth, scope) : this.list(depth, scope);
    return r.chance(0.5) ? `{{ ${e} }}` : `{{ (${e}) | length }}`;
  }

  /** A whole template. */
  program(): string {
    const r = this.rng;
    const depth = r.range(1, 4);
    const none: Scope = { text: [], list: [] };
    const forms: Array<() => string> = [
      () => this.shown(depth, none),
      () => `${this.shown(depth, none)} and ${this.shown(depth, none)}`,
      () => `{% for i in range(${this.count()}) %}${this.shown(depth, { text: ['(i | string)'], list: ['[i]'] })}{% endfor %}`,
      () => {
        const text = r.chance(0.5);
        const init = text ? this.text(1, none) : this.list(1, none);
        const step = text ? this.text(depth, { text: ['ns.v'], list: [] }) : this.list(depth, { text: [], list: ['ns.v'] });
        return `{% set ns = namespace(v=${init}) %}{% for i in range(${this.count()}) %}{% set ns.v = ${step} %}{% endfor %}{{ ns.v | length }}`;
      },
      () => {
        const text = r.chance(0.5);
        const init = text ? this.text(1, none) : this.list(1, none);
        const step = text ? this.text(depth, { text: ['v'], list: [] }) : this.list(depth, { text: [], list: ['v'] });
        return `{% macro m(v, n) %}{% if n > 0 %}{{ m(${step}, n - 1) }}{% else %}{{ v | length }}{% endif %}{% endmacro %}{{ m(${init}, ${this.count()}) }}`;
      },
      () => `{% filter ${r.pick(['upper', 'indent(8)', 'tojson', 'urlencode', 'e'])} %}{% for i in range(${this.count()}) %}${this.shown(depth, none)}{% endfor %}{% endfilter %}`,
      () => `{% set x %}{% for i in range(${this.count()}) %}${this.shown(depth, none)}{% endfor %}{% endset %}{{ (x ~ x) | length }}`,
      () => `{% set big = ${this.text(depth, none)} %}{% for i in range(${this.count()}) %}{{ (big ~ i) | ${r.pick(['upper', 'length', 'tojson | length', 'reverse | length', 'float(0)'])} }}{% endfor %}`,
    ];
    return r.pick(forms)();
  }
}
