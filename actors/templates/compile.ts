import { parse, tokenize } from '@huggingface/jinja';
import { TemplateError, syntaxError } from './errors.ts';

/**
 * Template text to a syntax tree. @huggingface/jinja tokenises and parses (its lexer without
 * trim_blocks and lstrip_blocks: Jinja's defaults, which the original keeps); what its parser
 * lacks of Jinja as the original uses it is added on the way in:
 *
 * - tests with arguments (`x is divisibleby(3)`, `x is eq 5`, `is is_state('on')`): every
 *   `is [not] name [args]` becomes a filter named `__is__name` (or `__isnot__name`), which
 *   binds exactly as tightly as Jinja's tests;
 * - `{% do expr %}` (the original enables jinja2.ext.do) becomes a set of a throwaway name;
 * - `{% raw %}...{% endraw %}` becomes a string literal.
 */

/** A node of the tree the parser builds (its classes are not exported; only their shape is used). */
export interface Node {
  type: string;
  [key: string]: any;
}

interface Token {
  value: string;
  type: string;
}

export const TEST_PREFIX = '__is__';
export const NEGATED_TEST_PREFIX = '__isnot__';
const DO_TARGET = '__do__';

/** The longest template text taken; the lexer reads a character at a time. */
export const MAX_TEMPLATE_CHARS = 1024 * 1024;

function quoteForLexer(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** `{% raw %}` blocks as string literals, whitespace control kept. */
function rawBlocks(source: string): string {
  return source.replace(/\{%(-?)\s*raw\s*(-?)%\}([\s\S]*?)\{%(-?)\s*endraw\s*(-?)%\}/g, (_all, lBefore, lAfter, body: string, rBefore, rAfter) => {
    let text = body;
    if (lAfter) text = text.trimStart();
    if (rBefore) text = text.trimEnd();
    return `{{${lBefore ? '-' : ''} ${quoteForLexer(text)} ${rAfter ? '-' : ''}}}`;
  });
}

const KEYWORDS = new Set(['and', 'or', 'else', 'if', 'in', 'is', 'not']);

/** The tokens of one primary expression starting at `i` (a test's argument written without parentheses). */
function primaryEnd(tokens: Token[], i: number): number {
  const t = tokens[i];
  if (!t) return i;
  if (t.type === 'NumericLiteral') return i + 1;
  if (t.type === 'StringLiteral') {
    while (tokens[i]?.type === 'StringLiteral') i++;
    return i;
  }
  if (t.type === 'Identifier' && !KEYWORDS.has(t.value)) {
    i++;
    while (tokens[i]?.type === 'Dot' && tokens[i + 1]?.type === 'Identifier') i += 2;
    return i;
  }
  if (t.type === 'OpenSquareBracket' || t.type === 'OpenCurlyBracket') {
    const open = t.type;
    const close = open === 'OpenSquareBracket' ? 'CloseSquareBracket' : 'CloseCurlyBracket';
    let depth = 0;
    for (; i < tokens.length; i++) {
      if (tokens[i].type === open) depth++;
      else if (tokens[i].type === close && --depth === 0) return i + 1;
    }
  }
  return i;
}

function rewrite(tokens: Token[]): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.type === 'Identifier' && t.value === 'do' && out.at(-1)?.type === 'OpenStatement') {
      out.push({ type: 'Identifier', value: 'set' }, { type: 'Identifier', value: DO_TARGET }, { type: 'Equals', value: '=' });
      continue;
    }
    if (t.type !== 'Identifier' || t.value !== 'is') {
      out.push(t);
      continue;
    }
    let j = i + 1;
    const negate = tokens[j]?.type === 'Identifier' && tokens[j].value === 'not';
    if (negate) j++;
    const name = tokens[j];
    if (name?.type !== 'Identifier') throw syntaxError(`expected token 'name', got '${name?.value ?? 'end of template'}'`);
    out.push({ type: 'Pipe', value: '|' }, { type: 'Identifier', value: (negate ? NEGATED_TEST_PREFIX : TEST_PREFIX) + name.value });
    i = j;
    const next = tokens[j + 1];
    if (!next || next.type === 'OpenParen') continue;
    const end = primaryEnd(tokens, j + 1);
    if (end === j + 1) continue;
    out.push({ type: 'OpenParen', value: '(' }, ...tokens.slice(j + 1, end), { type: 'CloseParen', value: ')' });
    i = end - 1;
  }
  return out;
}

/** Jinja's wording where the parser's own would not say what is wrong. */
function syntaxMessage(err: unknown): string {
  if (err instanceof TypeError) return 'unexpected end of template';
  if (err instanceof RangeError) return 'the template is nested too deeply';
  return (err as Error)?.message ?? String(err);
}

/** Parses template text; TemplateSyntaxError naming the problem when it is not a template. */
export function parseTemplate(source: string): Node {
  if (source.length > MAX_TEMPLATE_CHARS) throw syntaxError(`the template is longer than ${MAX_TEMPLATE_CHARS} characters`);
  let tokens: Token[];
  try {
    tokens = rewrite(tokenize(rawBlocks(source), {}) as Token[]);
  } catch (err) {
    if (err instanceof TemplateError) throw err;
    throw syntaxError(syntaxMessage(err));
  }
  try {
    return parse(tokens as any) as unknown as Node;
  } catch (err) {
    throw syntaxError(syntaxMessage(err));
  }
}

/** Every filter and test a tree names, for the check Jinja makes when it compiles. */
export function namesUsed(program: Node): { filters: Set<string>; tests: Set<string> } {
  const filters = new Set<string>();
  const tests = new Set<string>();
  const stack: unknown[] = [program];
  while (stack.length) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      // one at a time: a template of 100,000 statements would overflow the stack spread into push()
      for (const n of node) stack.push(n);
      continue;
    }
    if (node instanceof Map) {
      for (const [k, v] of node) stack.push(k, v);
      continue;
    }
    if (!node || typeof node !== 'object' || typeof (node as Node).type !== 'string') continue;
    const n = node as Node;
    if (n.type === 'FilterExpression' || n.type === 'FilterStatement') {
      const f = n.filter as Node;
      const name: string = f.type === 'Identifier' ? f.value : f.callee?.value;
      // `x | f(a).b`: Jinja ends a filter at its arguments
      if (typeof name !== 'string') throw syntaxError("expected token 'end of print statement', got '.'");
      if (name.startsWith(NEGATED_TEST_PREFIX)) tests.add(name.slice(NEGATED_TEST_PREFIX.length));
      else if (name.startsWith(TEST_PREFIX)) tests.add(name.slice(TEST_PREFIX.length));
      else filters.add(name);
    }
    for (const v of Object.values(n)) if (v && typeof v === 'object') stack.push(v);
  }
  return { filters, tests };
}
