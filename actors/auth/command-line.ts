import { spawn } from 'node:child_process';

/** The checked options of a `command_line` provider. */
export interface CommandLineConfig {
  /** absolute path of the program */
  command: string;
  args: string[];
  /** read `key = value` lines of its output for the new user's name, group and local_only */
  meta: boolean;
}

/** What the program said of a login. */
export type CommandVerdict = { ok: true; meta: Record<string, string> } | { ok: false; reason: string };

// the keys a program may set, as the original allows them
const META_KEYS = new Set(['name', 'group', 'local_only']);
// a program that never ends must not hold a login flow (and its process) forever
const COMMAND_TIMEOUT_MS = 30_000;
// more output than this is not meta lines: the rest is not read
const MAX_OUTPUT_BYTES = 64 * 1024;

/**
 * Runs the configured program with the credentials in its environment, and nothing else there
 * (the original passes `username` and `password` only). Exit status 0 accepts the login.
 */
export function checkCommandLogin(config: CommandLineConfig, username: string, password: string): Promise<CommandVerdict> {
  return new Promise((settle) => {
    let output = Buffer.alloc(0);
    let done = false;
    const finish = (verdict: CommandVerdict) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      settle(verdict);
    };
    const child = spawn(config.command, config.args, {
      env: { username, password },
      stdio: ['ignore', config.meta ? 'pipe' : 'ignore', 'ignore'],
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish({ ok: false, reason: `command did not exit within ${COMMAND_TIMEOUT_MS / 1000} s` });
    }, COMMAND_TIMEOUT_MS);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (output.length < MAX_OUTPUT_BYTES) output = Buffer.concat([output, chunk]).subarray(0, MAX_OUTPUT_BYTES);
    });
    child.on('error', (err) => finish({ ok: false, reason: `cannot run the command: ${err.message}` }));
    child.on('close', (code, signal) => {
      if (code !== 0) finish({ ok: false, reason: signal ? `command was killed by ${signal}` : `command exited with code ${code}` });
      else finish({ ok: true, meta: config.meta ? metaLines(output.toString('utf8')) : {} });
    });
  });
}

/** `key = value` lines; leading blanks and `#` comments skipped, unknown keys ignored. */
export function metaLines(text: string): Record<string, string> {
  const meta: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trimStart();
    const eq = line.indexOf('=');
    if (line.startsWith('#') || eq < 0) continue;
    const key = line.slice(0, eq).trim();
    if (META_KEYS.has(key)) meta[key] = line.slice(eq + 1).trim();
  }
  return meta;
}
