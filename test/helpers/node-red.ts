// Runs Node-RED headless, as its users start it, with node-red-contrib-home-assistant-websocket
// from this project's node_modules: a temporary user directory, loopback only, a free port.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.ts';

const MODULES = fileURLToPath(new URL('../../node_modules/', import.meta.url));
const PACKAGE = 'node-red-contrib-home-assistant-websocket';

export interface NodeRed {
  child: ChildProcess;
  /** the editor's and the admin API's root, also where `http in` nodes listen */
  base: string;
  output(): string;
  /** resolves with the exit code once the process has ended */
  exited: Promise<number | null>;
  /** true while the process runs */
  running(): boolean;
}

/**
 * Starts Node-RED with `flows` (and their credentials, kept unencrypted) deployed from the flow
 * file; resolves once it serves. Killed when the test ends.
 */
export async function startNodeRed(
  t: { teardown(fn: () => unknown): void },
  options: { flows: unknown[]; credentials: Record<string, Record<string, string>>; env?: Record<string, string> },
): Promise<NodeRed> {
  const userDir = await mkdtemp(join(tmpdir(), 'hearth-node-red-'));
  // only the package is linked in, so Node-RED's palette scan does not walk every module here
  await mkdir(join(userDir, 'node_modules'));
  await symlink(join(MODULES, PACKAGE), join(userDir, 'node_modules', PACKAGE), 'dir');
  const port = await freePort();
  const settings = {
    uiHost: '127.0.0.1',
    uiPort: port,
    flowFile: 'flows.json',
    credentialSecret: false,
    logging: { console: { level: 'info', metrics: false, audit: false } },
    telemetry: { enabled: false },
    diagnostics: { enabled: false },
    externalModules: { autoInstall: false, palette: { allowInstall: false } },
  };
  await writeFile(join(userDir, 'settings.js'), `module.exports = ${JSON.stringify(settings, null, 2)};\n`);
  await writeFile(join(userDir, 'flows.json'), JSON.stringify(options.flows, null, 2));
  await writeFile(join(userDir, 'flows_cred.json'), JSON.stringify(options.credentials, null, 2));

  const child = spawn(process.execPath, [join(MODULES, 'node-red', 'red.js'), '--userDir', userDir, '--settings', join(userDir, 'settings.js'), '--no-telemetry'], {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c.toString()));
  child.stderr!.on('data', (c) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const late = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(late);
    }
    await rm(userDir, { recursive: true, force: true });
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (!out.includes('Started flows')) {
    if (child.exitCode !== null) throw new Error(`Node-RED exited with ${child.exitCode} before it served:\n${out}`);
    if (Date.now() > deadline) throw new Error(`Node-RED did not start its flows within 60 s:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, base, output: () => out, exited, running: () => child.exitCode === null && child.signalCode === null };
}

