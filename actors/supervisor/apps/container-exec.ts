/**
 * Work inside an app's running container: a command run without a shell (docker exec), as a
 * backup_pre/backup_post command is, and bytes written to its stdin (docker attach).
 */
import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import type { Logger } from '../../logging/logs.ts';
import { SupervisorError, keyedError } from '../errors.ts';
import type { AppConfig } from './repository.ts';
import { splitCommandLine } from './command-line.ts';

/** bytes of a backup command's output kept for the log */
const EXEC_OUTPUT_KEPT = 64 * 1024;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A backup_pre/backup_post command, run in the app's container `name` without a shell. A command
 * that fails throws `app_pre_post_backup_command_returned_error`, its output a debug line.
 */
export async function runBackupCommand(docker: Docker, name: string, app: { slug: string; config: AppConfig }, command: string, logger: Logger): Promise<void> {
  let result: { exitCode: number; output: string };
  try {
    result = await runInContainer(docker, name, splitCommandLine(command));
  } catch (err) {
    throw new SupervisorError(`Failed running pre-/post backup command ${command}: ${(err as Error).message}`);
  }
  if (result.exitCode === 0) return;
  logger.debug(`app ${app.slug}: pre-/post backup command failed with: ${result.output}`);
  const err = keyedError(
    400,
    'app_pre_post_backup_command_returned_error',
    'Pre-/Post backup command for app {app} returned error code: {exit_code}. Please report this to the app developer. Enable debug logging to capture complete command output using {debug_logging_command}',
    { app: app.config.name, exit_code: result.exitCode, debug_logging_command: 'ha supervisor options --logging debug' },
  );
  // the type a job's error shows
  err.name = 'AppPrePostBackupCommandReturnedError';
  throw err;
}

/** Runs `argv` in the running container `name` (docker exec); its exit code and the end of its output. */
export async function runInContainer(docker: Docker, name: string, argv: string[]): Promise<{ exitCode: number; output: string }> {
  const exec = await docker.getContainer(name).exec({ Cmd: argv, AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  // a chatty command's output is kept to its last part: enough for the debug line
  const chunks: Buffer[] = [];
  let kept = 0;
  const sink = new PassThrough();
  sink.on('data', (c: Buffer) => {
    chunks.push(c);
    kept += c.length;
    while (kept > EXEC_OUTPUT_KEPT && chunks.length > 1) kept -= chunks.shift()!.length;
  });
  docker.modem.demuxStream(stream, sink, sink);
  await new Promise<void>((ok, fail) => {
    stream.on('end', ok);
    stream.on('close', ok);
    stream.on('error', fail);
  });
  // the engine may close the stream a moment before it notes the exit code
  let info = await exec.inspect();
  for (let tries = 0; info.Running && tries < 100; tries++) {
    await sleep(20);
    info = await exec.inspect();
  }
  return { exitCode: info.ExitCode ?? -1, output: Buffer.concat(chunks).toString('utf8') };
}

/** Writes `body` and a newline to the running container `name`'s stdin. */
export async function writeToContainerStdin(docker: Docker, name: string, body: Buffer): Promise<void> {
  const stream = (await docker.getContainer(name).attach({ stream: true, stdin: true, hijack: true })) as NodeJS.ReadWriteStream & { destroy?: () => void };
  await new Promise<void>((ok, fail) => {
    stream.on('error', fail);
    stream.write(Buffer.concat([body, Buffer.from('\n')]), (err) => (err ? fail(err) : ok()));
  });
  // the engine passes the bytes on asynchronously; closing at once could lose them
  await sleep(100);
  stream.end();
  stream.destroy?.();
}
