import { firstProblem } from '../../voluptuous/check.ts';
import { validate, required, str, int, oneOf, maybe, matching, boolean, checkedText, schema } from '../validate.ts';
import { SupervisorError } from '../errors.ts';
import { CIFS_VERSIONS, MOUNT_TYPES, MOUNT_USAGES, type MountConfig, type MountCredentials } from './types.ts';

/**
 * A network mount's body (supervisor-wire §4.6), from a client or from a backup's mounts.json,
 * checked as the original's schemas check it: unknown keys dropped, CIFS or NFS fields by
 * `type`, username and password both or neither, and a backup mount never read-only. A username
 * or password is never repeated in an answer, not even in a validation error.
 */

const NAME = /^[A-Za-z0-9_]+$/;
// no slash or backslash: the server and share are parts of `//server/share`
const PATH_PART = /^[^\\/]+$/;
// a credential is one `key=value` line of mount.cifs's credentials file
const CREDENTIAL = /^[^,=\r\n]+$/;

const SECRET = checkedText('mount_credential', (v) => CREDENTIAL.test(v), 'does not match regular expression ^[^,=]+$ (no comma, equals sign or line break)', 'expected str');

const BASE = {
  name: required(matching(NAME)),
  type: required(oneOf(MOUNT_TYPES)),
  usage: required(oneOf(MOUNT_USAGES)),
  read_only: boolean,
  server: required(matching(PATH_PART)),
  port: int(1, 65535),
};
// unknown keys are dropped, not refused: a backup's mounts.json may hold more than a client's body
const TYPE = schema({ type: required(oneOf(MOUNT_TYPES)) }, { allowExtra: true });
const CIFS = schema({ ...BASE, share: required(matching(PATH_PART)), version: maybe(oneOf(CIFS_VERSIONS)) }, { allowExtra: true });
const NFS = schema({ ...BASE, path: required(str) }, { allowExtra: true });

/** A mount body checked: its configuration and, for CIFS, its credentials. */
export function parseMount(body: Record<string, unknown>): { config: MountConfig; credentials?: MountCredentials } {
  const { username, password, ...rest } = body;
  const type = validate(rest, TYPE).type!;
  const v = type === 'cifs' ? validate(rest, CIFS) : validate(rest, NFS);
  let credentials: MountCredentials | undefined;
  if (type === 'cifs' && (username !== undefined || password !== undefined)) {
    if (username === undefined || password === undefined) throw new SupervisorError("some but not all values in the same group of inclusion 'basic_auth' @ data[<basic_auth>]");
    credentials = { username: checkSecret('username', username), password: checkSecret('password', password) };
  }
  const config: MountConfig = { name: v.name!, type, usage: v.usage!, read_only: v.read_only ?? false, server: v.server! };
  if (v.port !== undefined) config.port = v.port;
  // only a CIFS body has a share (required there), only an NFS one a path
  if ('share' in v) {
    config.share = v.share!;
    config.version = v.version ?? null;
  } else if ('path' in v) config.path = v.path!;
  if (config.usage === 'backup' && config.read_only) throw new SupervisorError('Backup mounts cannot be read only');
  return { config, credentials };
}

/** A credential's failure names the key, never the value. */
function checkSecret(key: string, value: unknown): string {
  const problem = firstProblem(SECRET, value);
  if (problem) throw new SupervisorError(`${problem.reason} @ data['${key}']`);
  return value as string;
}
