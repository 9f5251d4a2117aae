// A Hearth instance for benchmarks: 127.0.0.1, a free port, its owner onboarded.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startHearth, type Hearth } from '../bin/instance.ts';
import { onboard } from '../test/helpers/hearth.ts';
import { tempDir } from './common.ts';

/** A Hearth instance on 127.0.0.1 with its owner onboarded. */
export interface BenchHearth {
  hearth: Hearth;
  port: number;
  base: string;
  token: string;
  dataDir: string;
  lines: string[];
}

/** Starts Hearth on a data directory (a fresh one unless given) with an optional configuration.yaml. */
export async function startBenchHearth(options: { dataDir?: string; config?: string; onboard?: boolean } = {}): Promise<BenchHearth> {
  const dataDir = options.dataDir ?? (await tempDir('hearth'));
  if (options.config !== undefined) await writeFile(join(dataDir, 'configuration.yaml'), options.config);
  const lines: string[] = [];
  const hearth = await startHearth({ dataDir, port: 0, host: '127.0.0.1', log: (l) => lines.push(l) });
  const base = `http://127.0.0.1:${hearth.port}`;
  const token = options.onboard === false ? '' : (await onboard(base)).access_token;
  return { hearth, port: hearth.port, base, token, dataDir, lines };
}

/** The configuration.yaml of the fast commit mode. */
export const FAST_CONFIG = 'recorder:\n  commit: fast\n';

