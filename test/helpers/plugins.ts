// Plugins in tests: a container-name prefix and a network of the test's own (parallel tests run
// their own dns plugins on one engine), removed when the test ends.
import { docker } from './core-container.ts';
import type { PluginNetworkOptions } from '../../actors/supervisor/plugins/network.ts';

/** A plugin network with a subnet no other network holds, made now; removed (after its containers) at the end. */
export async function testPluginNetwork(t: { teardown(fn: () => unknown): void }, prefix: string): Promise<PluginNetworkOptions> {
  const name = `${prefix}net`;
  for (let attempt = 0; ; attempt++) {
    const subnet = `10.${200 + Math.floor(Math.random() * 50)}.${Math.floor(Math.random() * 256)}.0/24`;
    try {
      await docker('network', 'create', '--subnet', subnet, '--label', 'supervisor_managed', name);
      t.teardown(async () => {
        const names = (await docker('ps', '-a', '--filter', `name=^${prefix}`, '--format', '{{.Names}}').catch(() => '')).split('\n').filter(Boolean);
        if (names.length) await docker('rm', '-f', ...names).catch(() => '');
        await docker('network', 'rm', name).catch(() => '');
      });
      return { name, subnet };
    } catch (err) {
      if (attempt > 10) throw err; // the subnet overlaps another: try another
    }
  }
}
