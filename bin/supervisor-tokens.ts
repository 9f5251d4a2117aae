// `hearth supervisor tokens`: the operator issues, lists and revokes supervisor tokens with a role
// (for scripts and tools that should not hold the admin token) while the supervisor is stopped.
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openEventLog } from '../store/log.ts';
import { randomIds, systemClock } from '../actors/clock.ts';
import { Tokens } from '../actors/supervisor/tokens.ts';
import { replayArea } from '../actors/restore.ts';
import { ROLES, type Role } from '../actors/supervisor/access.ts';

export const TOKENS_USAGE = `usage:
  hearth supervisor tokens list [--data DIR]                     the tokens (id, kind, role, name; never the token)
  hearth supervisor tokens add <name> --role ROLE [--data DIR]   issue a token with a role (${ROLES.join(', ')}); prints it once
  hearth supervisor tokens revoke <id> [--data DIR]              the token stops working

Works only while the supervisor is stopped (it holds the log's lock); DIR defaults to
HEARTH_SUPERVISOR_DATA or ./supervisor-data.`;

/** Runs `hearth supervisor tokens <argv>`; resolves to the exit code. */
export async function tokensMain(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { data: { type: 'string', short: 'd' }, role: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (err) {
    return usage((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(TOKENS_USAGE);
    return 0;
  }
  const [command, ...args] = positionals;
  if (command === 'add') {
    if (args.length !== 1 || !args[0]) return usage('add takes one name');
    if (!values.role || !(ROLES as readonly string[]).includes(values.role)) return usage(`give --role, one of ${ROLES.join(', ')}`);
  } else if (command === 'revoke') {
    if (args.length !== 1) return usage('revoke takes one token id');
  } else if (command === 'list') {
    if (args.length) return usage('list takes no arguments');
  } else return usage(command === undefined ? 'give a command' : `unknown tokens command ${JSON.stringify(command)}`);
  if (command !== 'add' && values.role !== undefined) return usage('--role goes with add only');

  const dataDir = resolve(values.data ?? process.env.HEARTH_SUPERVISOR_DATA ?? './supervisor-data');
  if (!(await stat(dataDir).then((s) => s.isDirectory(), () => false))) {
    console.error(`hearth supervisor tokens: no data directory at ${dataDir}; give --data DIR`);
    return 1;
  }
  let log;
  try {
    log = await openEventLog({ path: join(dataDir, 'log'), log: (line) => console.error(line) });
  } catch (err) {
    if (/lock/i.test((err as Error).message)) {
      console.error(`hearth supervisor tokens: the supervisor is running on ${dataDir} (its event log is locked). Stop it first.`);
      return 1;
    }
    throw err;
  }
  try {
    const clock = systemClock();
    const ids = randomIds();
    const tokens = new Tokens({ log, clock, ids });
    await replayArea(log, tokens);
    const context = { id: ids.ulid(clock.now()), parent_id: null, user_id: null };
    if (command === 'list') {
      for (const e of tokens.list()) console.log(`${e.id}  ${e.kind.padEnd(8)} ${e.role.padEnd(8)} ${e.name}`);
      return 0;
    }
    if (command === 'add') {
      const entry = await tokens.issue({ name: args[0], kind: 'app', role: values.role as Role }, context);
      console.log(entry.token);
      return 0;
    }
    const target = tokens.list().find((e) => e.id === args[0]);
    if (!target) {
      console.error(`hearth supervisor tokens: no token with id ${args[0]} (see tokens list)`);
      return 1;
    }
    if (target.kind !== 'app') {
      console.error(`hearth supervisor tokens: the ${target.kind} token cannot be revoked here (${target.kind === 'core' ? 'the core gets a new one when its container is recreated' : 'it is the operator\'s admin token in admin.token'})`);
      return 1;
    }
    await tokens.revoke(target.id, context);
    console.log(`revoked ${target.id} (${target.name})`);
    return 0;
  } finally {
    await log.close();
  }
}

function usage(problem: string): number {
  console.error(`hearth supervisor tokens: ${problem}\n${TOKENS_USAGE}`);
  return 2;
}
