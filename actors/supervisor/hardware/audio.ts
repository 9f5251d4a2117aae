import type { HostSystem } from '../host/system.ts';

/**
 * `/hardware/audio`: the sound server's inputs and outputs, name to description. The original
 * asks PulseAudio (its audio plugin); Hearth asks whatever PulseAudio-compatible server the host
 * runs through `pactl`. Without one both maps are empty, as in the original.
 */

/** `pactl list sinks|sources` blocks: each `Name:` with its `Description:`. */
export function parseStreams(out: string): Record<string, string> {
  const map: Record<string, string> = {};
  for (const block of out.split(/\n(?=\S)/)) {
    const name = /^\s*Name:\s*(.+)$/m.exec(block)?.[1]?.trim();
    const description = /^\s*Description:\s*(.+)$/m.exec(block)?.[1]?.trim();
    // a source that only monitors an output is no input
    if (name && !name.endsWith('.monitor')) map[name] = description ?? name;
  }
  return map;
}

export async function hostAudio(host: HostSystem): Promise<{ audio: { input: Record<string, string>; output: Record<string, string> } }> {
  const ask = (what: string) =>
    host.run('pactl', ['list', what], { timeoutMs: 5000 }).then(parseStreams, () => ({}) as Record<string, string>);
  const [input, output] = await Promise.all([ask('sources'), ask('sinks')]);
  return { audio: { input, output } };
}
