// Collects the failed assertions of a TAP stream with the subtests they sit in and their
// diagnostics, so a run whose output is cut to its tail still says what failed.
const MAX_FAILURES = 12;
const MAX_DIAG_LINES = 30;

interface Failure {
  path: string[];
  line: string;
  diag: string[];
}

export class FailureDigest {
  #partial = '';
  #names: { indent: number; name: string; failuresBefore: number }[] = [];
  #failures: Failure[] = [];
  #count = 0;
  #open?: Failure & { indent: number; inYaml: boolean };

  feed(text: string): void {
    const lines = (this.#partial + text).split('\n');
    this.#partial = lines.pop() ?? '';
    for (const line of lines) this.#line(line);
  }

  #line(line: string): void {
    const indent = line.length - line.trimStart().length;
    const body = line.trim();
    const open = this.#open;
    if (open) {
      if (!open.inYaml && body === '---' && indent >= open.indent) {
        open.inYaml = true;
        return;
      }
      if (open.inYaml) {
        if (body === '...') this.#open = undefined;
        else if (open.diag.length < MAX_DIAG_LINES) open.diag.push(line.slice(open.indent));
        return;
      }
      this.#open = undefined;
    }
    const subtest = /^# Subtest: (.*)$/.exec(body);
    if (subtest) {
      this.#names = this.#names.filter((n) => n.indent < indent);
      this.#names.push({ indent, name: subtest[1], failuresBefore: this.#count });
      return;
    }
    if (!body.startsWith('not ok')) return;
    // a subtest's own "not ok" (at its "# Subtest:" indent) repeats its children's failures:
    // keep it only when none of them failed, as when it timed out or threw
    const own = this.#names.find((n) => n.indent === indent);
    const repeatsChildren = own !== undefined && this.#count > own.failuresBefore;
    this.#count++;
    if (repeatsChildren) return;
    // the subtests a result sits in are those opened at a smaller indent than its own line
    const path = this.#names.filter((n) => n.indent < indent).map((n) => n.name);
    if (this.#failures.length >= MAX_FAILURES) return;
    const failure = { path, line: body, diag: [] as string[] };
    this.#failures.push(failure);
    this.#open = { ...failure, indent, inYaml: false };
    this.#open.diag = failure.diag;
  }

  render(): string {
    if (!this.#failures.length) return '';
    const out = ['', '# What failed:'];
    for (const f of this.#failures) {
      out.push(`${f.path.join(' > ')}${f.path.length ? ' > ' : ''}${f.line}`);
      for (const d of f.diag) out.push(`    ${d}`);
    }
    if (this.#count > this.#failures.length) out.push(`(${this.#count} "not ok" lines in all, counting the subtests that hold them)`);
    return out.join('\n');
  }
}
