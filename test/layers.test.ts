// The import rules of docs/architecture.md, checked on the source: a lower layer never reaches up.
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...sources(path));
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** Every module specifier a file imports or re-exports, resolved to a path under ROOT when relative. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^'"]*?\bfrom\s+['"]([^'"]+)['"]/gm)) found.push(m[1]);
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1]);
  return found.map((spec) => (spec.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(file), spec)) : spec));
}

const topFolder = (path: string) => path.split('/')[0];

t.test('machines/ import only xstate and machines/', async (t) => {
  for (const file of sources('machines')) {
    for (const spec of importsOf(file)) {
      const ok = spec === 'xstate' || topFolder(spec) === 'machines';
      t.ok(ok, `${file} imports ${spec}`);
    }
  }
});

t.test('actors/ never import from gateway/', async (t) => {
  for (const file of sources('actors')) {
    for (const spec of importsOf(file)) t.not(topFolder(spec), 'gateway', `${file} imports ${spec}`);
  }
});

t.test('store/ knows no actor, machine, stream or gateway', async (t) => {
  for (const file of sources('store')) {
    for (const spec of importsOf(file)) t.notOk(['actors', 'machines', 'streams', 'gateway'].includes(topFolder(spec)), `${file} imports ${spec}`);
  }
});

t.test('streams/ never import from gateway/', async (t) => {
  for (const file of sources('streams')) {
    for (const spec of importsOf(file)) t.not(topFolder(spec), 'gateway', `${file} imports ${spec}`);
  }
});
