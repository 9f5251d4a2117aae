import type { Area } from './area.ts';
import type { EventLog } from '../store/types.ts';

/**
 * Loads each area's snapshot, then replays what it has not seen. Areas with a snapshot share one
 * read of the log tail after it (at most a snapshot interval long). An area without one reads
 * only its own streams through the per-stream index, and only their last records where those
 * hold the whole state. Resolves to the count of records read.
 */
export async function restore(log: EventLog, areas: Area[], logLine: (line: string) => void): Promise<number> {
  let n = 0;
  const tail = new Map<Area, number>();
  for (const area of areas) {
    const snap = await log.loadSnapshot(area.name);
    if (snap && snap.version === area.snapshotVersion) {
      area.restore(snap.data);
      tail.set(area, snap.seq);
      continue;
    }
    if (snap) logLine(`snapshot of ${area.name} has format ${snap.version}, expected ${area.snapshotVersion}: replaying its log instead`);
    n += await replayArea(log, area);
  }
  if (tail.size === 0) return n;
  // areas evolve from the state each record sets: an entity's old state is not rebuilt
  for await (const r of log.read({ gt: Math.min(...tail.values()), rebuild: false })) {
    n++;
    for (const [area, after] of tail) if (r.seq > after && area.owns(r)) area.evolve(r);
  }
  return n;
}

/**
 * Evolves an area from its own streams alone (only their last records where those hold the
 * whole state), each record through the area's `owns`. Resolves to the count of records read.
 */
export async function replayArea(log: EventLog, area: Area): Promise<number> {
  let n = 0;
  for await (const r of log.readStreams(area.streamPrefix, { latest: area.latestSuffices })) {
    n++;
    if (area.owns(r)) area.evolve(r);
  }
  return n;
}
