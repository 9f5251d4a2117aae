// The template syntax of the original's sentence files (hassil): `(a|b)` alternatives (also inside
// words), `[x]` optional, `(a; b; c)` permutations, `{list}` / `{list:slot}` slot lists,
// `<rule>` expansion rules, `\` escaping the next character. Parsed into a small tree.

/** A parsed template. */
export type TemplateNode =
  | { t: 'text'; v: string }
  | { t: 'seq'; c: TemplateNode[] }
  | { t: 'alt'; c: TemplateNode[]; optional: boolean }
  | { t: 'perm'; c: TemplateNode[] }
  | { t: 'list'; list: string; slot: string }
  | { t: 'rule'; name: string };

/** A template that does not parse: the message names the problem and where. */
export class TemplateSyntaxError extends Error {
  readonly code = 'HEARTH_SENTENCE_SYNTAX';
  constructor(
    message: string,
    readonly template: string,
    readonly position: number,
  ) {
    super(`${message} at character ${position + 1} of "${template}"`);
    this.name = 'TemplateSyntaxError';
  }
}

const CLOSE: Record<string, string> = { '(': ')', '[': ']' };

/** Parses one template; throws TemplateSyntaxError. */
export function parseTemplate(template: string): TemplateNode {
  let i = 0;
  const fail = (msg: string, at = i): never => {
    throw new TemplateSyntaxError(msg, template, at);
  };

  // a sequence up to one of the `stops` characters (not consumed)
  function seq(stops: string): TemplateNode {
    const items: TemplateNode[] = [];
    let text = '';
    const flush = () => {
      if (text) items.push({ t: 'text', v: text });
      text = '';
    };
    while (i < template.length) {
      const c = template[i];
      if (stops.includes(c)) break;
      if (c === '\\') {
        if (i + 1 >= template.length) fail('a "\\" with nothing after it');
        text += template[i + 1];
        i += 2;
      } else if (c === '(' || c === '[') {
        flush();
        items.push(group(c));
      } else if (c === '{') {
        flush();
        const end = template.indexOf('}', i);
        if (end < 0) fail('a "{" without its "}"');
        const body = template.slice(i + 1, end).trim();
        const [list, slot, extra] = body.split(':').map((x) => x.trim());
        if (!list || extra !== undefined || (slot !== undefined && !slot) || /[\s(){}[\]<>|;]/.test(body.replace(/\s*:\s*/, ':')))
          fail(`"{${body}}" is not a list reference ({list} or {list:slot})`);
        items.push({ t: 'list', list, slot: slot ?? list });
        i = end + 1;
      } else if (c === '<') {
        flush();
        const end = template.indexOf('>', i);
        if (end < 0) fail('a "<" without its ">"');
        const name = template.slice(i + 1, end).trim();
        if (!name || /[(){}[\]<|;]/.test(name)) fail(`"<${name}>" is not a rule reference`);
        items.push({ t: 'rule', name });
        i = end + 1;
      } else if (c === ')' || c === ']' || c === '}' || c === '>') {
        fail(`an unexpected "${c}"`);
      } else if (c === '|' || c === ';') {
        fail(`"${c}" outside of a group`);
      } else {
        text += c;
        i++;
      }
    }
    flush();
    return items.length === 1 ? items[0] : { t: 'seq', c: items };
  }

  // `(` or `[` at i: alternatives separated by `|`, permutation parts by `;`
  function group(open: string): TemplateNode {
    const start = i;
    const close = CLOSE[open];
    i++;
    const parts: TemplateNode[][] = [[]];
    for (;;) {
      parts[parts.length - 1].push(seq(`|;${close}`));
      if (i >= template.length) fail(`a "${open}" without its "${close}"`, start);
      const c = template[i++];
      if (c === close) break;
      if (c === ';') {
        if (open === '[') fail('a permutation (";") inside "[...]"', i - 1);
        parts.push([]);
      }
    }
    const alts = (c: TemplateNode[]): TemplateNode => (c.length === 1 ? c[0] : { t: 'alt', c, optional: false });
    if (parts.length > 1) {
      if (parts.length > 6) fail('a permutation of more than 6 parts', start);
      return { t: 'perm', c: parts.map(alts) };
    }
    if (open === '[') return { t: 'alt', c: parts[0], optional: true };
    return alts(parts[0]);
  }

  const root = seq('');
  if (i < template.length) fail(`an unexpected "${template[i]}"`);
  return root;
}
