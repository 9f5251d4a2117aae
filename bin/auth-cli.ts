// `hearth auth`: manage the users of the `core` provider while Hearth is stopped, like the
// original's `hass --script auth` (list, add, validate, change_password). Every change is
// appended to the event log as the records the running system writes.
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openEventLog } from '../store/log.ts';
import type { EventLog, NewEvent } from '../store/types.ts';
import { randomIds, systemClock } from '../actors/clock.ts';
import type { Area } from '../actors/area.ts';
import { restore } from '../actors/restore.ts';
import { createAuth } from '../actors/auth/index.ts';
import { createPasswordHasher } from '../actors/auth/passwords.ts';
import { IP_BAN_STREAM, IpBans, canonicalIp, ipBanRecords } from '../actors/auth/ip-bans.ts';
import { isIP } from 'node:net';
import { CORE_PROVIDER, GROUP_ADMIN, GROUP_USERS, coreCredentialData, newUserData, normalizeUsername, userStream, type PasswordChanged, type UserRecord, type UsersSnapshot, userRecords } from '../actors/auth/users.ts';

export const AUTH_USAGE = `usage:
  hearth auth list [--data DIR]                                        list the users that log in with a password
  hearth auth add <username> <password> [--name NAME] [--admin] [--data DIR]
                                                                       create a user (in group system-users, or
                                                                       system-admin with --admin; name defaults
                                                                       to the username)
  hearth auth validate <username> <password> [--data DIR]              check a username and password (exit 0 or 1)
  hearth auth change_password <username> <new_password> [--data DIR]   set a new password
  hearth auth bans [--data DIR]                                        list the banned addresses (http: login_attempts_threshold)
  hearth auth unban <address> [--data DIR]                             lift the ban of an address

Works only while Hearth is stopped (it holds the log's lock); DIR defaults to HEARTH_DATA or ./data.
The onboarding state is left untouched, and users are added only once onboarding has created
the owner.`;

/** The provider whose credentials carry a username and a password hash. */
const PROVIDER_TYPE = CORE_PROVIDER;

/** Runs `hearth auth <argv>`; resolves to the exit code. */
export async function authMain(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { data: { type: 'string', short: 'd' }, name: { type: 'string' }, admin: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    return usage((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(AUTH_USAGE);
    return 0;
  }
  const [command, ...args] = positionals;
  const arity: Record<string, number> = { list: 0, add: 2, validate: 2, change_password: 2, bans: 0, unban: 1 };
  const takes: Record<number, string> = { 0: 'no arguments', 1: 'one address', 2: '<username> and a password' };
  if (command === undefined) return usage('give a command');
  if (!Object.hasOwn(arity, command)) return usage(`unknown auth command ${JSON.stringify(command)}`);
  if (args.length !== arity[command]) return usage(`${command} takes ${takes[arity[command]]}`);
  if (command !== 'add' && (values.name !== undefined || values.admin !== undefined)) return usage('--name and --admin go with add only');
  if (args.some((a) => a.length === 0)) return usage('usernames and passwords cannot be empty');

  const dataDir = resolve(values.data ?? process.env.HEARTH_DATA ?? './data');
  const log = await openLog(dataDir);
  if (typeof log === 'number') return log;
  try {
    if (command === 'bans' || command === 'unban') return await banCommand(log, command, args[0]);
    const session = await openAuth(log);
    const [username, password] = args;
    switch (command) {
      case 'list':
        return session.list();
      case 'add':
        return await session.add(username, password, values.name ?? username, values.admin === true);
      case 'validate':
        return await session.validate(username, password);
      default:
        return await session.changePassword(username, password);
    }
  } finally {
    await log.close();
  }
}

function usage(problem: string): number {
  console.error(`hearth auth: ${problem}\n${AUTH_USAGE}`);
  return 2;
}

/** The event log, or an exit code after saying why it cannot be opened. */
async function openLog(dataDir: string): Promise<EventLog | number> {
  const isDir = await stat(dataDir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir) {
    console.error(`hearth auth: no data directory at ${dataDir}; give --data DIR or set HEARTH_DATA`);
    return 1;
  }
  try {
    return await openEventLog({ path: join(dataDir, 'log'), log: (line) => console.error(line) });
  } catch (err) {
    const message = (err as Error).message;
    if (/lock/i.test(message)) {
      console.error(`hearth auth: Hearth is running on ${dataDir} (its event log is locked). Stop Hearth first, then run hearth auth again.`);
      return 1;
    }
    throw err;
  }
}

/** Loads an area's snapshot, then replays its records after it, as Hearth's restore does. */
async function restoreArea(log: EventLog, area: Area): Promise<void> {
  await restore(log, [area], () => {});
}

/** `bans` and `unban`: the ban list as Hearth restores it at start, changed by an `ip_unbanned` record. */
async function banCommand(log: EventLog, command: 'bans' | 'unban', address: string | undefined): Promise<number> {
  const clock = systemClock();
  const ids = randomIds();
  const bans = new IpBans({ log, clock, ids, logLine: (line) => console.error(line), config: { enabled: true, threshold: -1 } });
  await restoreArea(log, bans.area);
  if (command === 'bans') {
    for (const b of bans.banned()) console.log(`${b.ip_address} (banned ${new Date(b.banned_at).toISOString()})`);
    console.log();
    console.log(`Total banned: ${bans.banned().length}`);
    return 0;
  }
  const ip = canonicalIp(address!);
  if (isIP(ip) === 0) return usage(`not an IP address: ${JSON.stringify(address)}`);
  if (!bans.isBanned(ip)) {
    console.log(`Not banned: ${ip}`);
    return 1;
  }
  const time = clock.now();
  await log.append([ipBanRecords.make(IP_BAN_STREAM, { type: 'ip_unbanned', data: { ip_address: ip } }, { id: ids.ulid(time), parent_id: null, user_id: null }, time)]);
  console.log(`Unbanned ${ip}`);
  return 0;
}

async function openAuth(log: EventLog) {
  const clock = systemClock();
  const ids = randomIds();
  const auth = createAuth({ log, clock, ids, config: { logLine: (line) => console.error(line) } });
  await restoreArea(log, auth.area);
  const hasher = createPasswordHasher();

  /** The `core` credentials with their hashes, as the area holds them now. */
  const credentials = () => (auth.area.snapshot() as UsersSnapshot).credentials.filter((c) => c.auth_provider_type === PROVIDER_TYPE);
  const credentialOf = (username: string) => credentials().find((c) => c.data.username === normalizeUsername(username));
  // made by whoever runs the command, not by a Hearth user
  const record = (stream: string, kind: UserRecord, time = clock.now()): NewEvent => userRecords.make(stream, kind, { id: ids.ulid(time), parent_id: null, user_id: null }, time);

  return {
    list(): number {
      const users = new Map(auth.listUsers().map((u) => [u.id, u]));
      const mine = credentials();
      for (const c of mine) {
        const user = users.get(c.user_id);
        const notes = [
          user?.name && user.name !== c.data.username ? `name: ${user.name}` : '',
          user?.is_owner ? 'owner' : '',
          user?.group_ids.includes(GROUP_ADMIN) && !user.is_owner ? 'admin' : '',
          user && !user.is_active ? 'inactive' : '',
        ].filter(Boolean);
        console.log(notes.length ? `${c.data.username} (${notes.join(', ')})` : c.data.username);
      }
      console.log();
      console.log(`Total users: ${mine.length}`);
      return 0;
    },

    async add(username: string, password: string, name: string, admin: boolean): Promise<number> {
      const key = normalizeUsername(username);
      if (key.length === 0) {
        console.error('hearth auth: the username cannot be blank');
        return 2;
      }
      if (credentialOf(key)) {
        console.log('Username already exists!');
        return 1;
      }
      // the owner is made by onboarding: a user added before it would take the owner's place
      if (!auth.onboardingStatus().some((s) => s.step === 'user' && s.done)) {
        console.error('hearth auth: Hearth is not onboarded yet; create its owner through onboarding first (open Hearth in a browser, or POST /api/onboarding/users)');
        return 1;
      }
      const passwordHash = await hasher.hash(password);
      const now = clock.now();
      // onboarding made the owner already (add refuses before it)
      const created = newUserData(ids, now, { name, isOwner: false, groupIds: [admin ? GROUP_ADMIN : GROUP_USERS] });
      const credential = coreCredentialData(ids, created.id, key, passwordHash);
      // one append: the user never exists without its way to log in
      await log.append([record(userStream(created.id), { type: 'user_created', data: created }, now), record(userStream(created.id), { type: 'credential_added', data: credential }, now)]);
      console.log('Auth created');
      return 0;
    },

    async validate(username: string, password: string): Promise<number> {
      const credential = credentialOf(username);
      const valid = credential?.password_hash !== undefined && (await hasher.verify(password, credential.password_hash));
      console.log(valid ? 'Auth valid' : 'Auth invalid');
      return valid ? 0 : 1;
    },

    async changePassword(username: string, newPassword: string): Promise<number> {
      const credential = credentialOf(username);
      if (!credential) {
        console.log('User not found');
        return 1;
      }
      const changed: PasswordChanged = { credential_id: credential.id, password_hash: await hasher.hash(newPassword) };
      await log.append([record(userStream(credential.user_id), { type: 'password_changed', data: changed })]);
      console.log('Password changed');
      return 0;
    },
  };
}
