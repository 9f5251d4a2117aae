// What image builds and imports share: a directory as a tar stream for the engine, made by the
// host's GNU tar (spawned: `--numeric-owner`, `--owner`, `--group` are GNU options), and the
// engine's JSON-lines answer read back (its output lines, or the error it reported).
import { spawn } from 'node:child_process';
import type Docker from 'dockerode';

/** The whole of a stream as text. */
export async function streamToText(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text;
}

/** The engine's JSON-lines answer to a build or import: the output lines, or the error it reported. */
export function readProgress(answer: string): { lines: string[]; error: string | null } {
  const lines: string[] = [];
  let error: string | null = null;
  for (const line of answer.split('\n')) {
    if (!line.trim()) continue;
    let msg: any;
    try {
      msg = JSON.parse(line);
    } catch {
      lines.push(line);
      continue;
    }
    if (msg.error || msg.errorDetail) error = String(msg.error ?? msg.errorDetail?.message);
    else if (typeof msg.stream === 'string' && msg.stream.trim()) lines.push(msg.stream.trimEnd());
  }
  return { lines, error };
}

/** `dir` as a tar stream from GNU tar (owner root, numeric ids); `done` settles when tar has ended, `bytes` counts what it wrote. */
export function tarOf(dir: string): { stream: NodeJS.ReadableStream; done: Promise<void>; bytes(): number } {
  const tar = spawn('tar', ['--numeric-owner', '--owner=0', '--group=0', '-C', dir, '-c', '.'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let bytes = 0;
  tar.stderr.on('data', (chunk) => (stderr += chunk));
  tar.stdout.on('data', (chunk: Buffer) => (bytes += chunk.length));
  const done = new Promise<void>((ok, fail) => tar.on('close', (code) => (code === 0 ? ok() : fail(new Error(`tar of ${dir} failed (${code}): ${stderr.trim()}`)))));
  return { stream: tar.stdout, done, bytes: () => bytes };
}

/**
 * Builds the Dockerfile in `dir` (with what it copies) on the engine's builder, intermediate
 * containers removed: the builder's output lines, or the error it reported.
 */
export async function buildFolder(docker: Docker, dir: string, options: { t: string; dockerfile?: string; buildargs?: Record<string, string>; labels?: Record<string, string> }): Promise<{ lines: string[]; error: string | null }> {
  const { stream, done } = tarOf(dir);
  const progress = (await docker.buildImage(stream as any, { rm: true, forcerm: true, ...options } as any)) as unknown as NodeJS.ReadableStream;
  const answer = await streamToText(progress);
  await done;
  return readProgress(answer);
}
