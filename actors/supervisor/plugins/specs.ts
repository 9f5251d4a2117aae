/**
 * The five plugins as data: the container each runs as, its address on the plugin network
 * (supervisor-wire §12.2: dns .3, audio .4, cli .5, observer .6; multicast on the host's
 * network), the command of its busybox image and whether its update refuses the version in use
 * (§4.7: audio, dns and multicast do, cli and observer quietly do nothing).
 */

export const PLUGIN_NAMES = ['dns', 'audio', 'cli', 'observer', 'multicast'] as const;
export type PluginName = (typeof PLUGIN_NAMES)[number];

export interface PluginSpec {
  name: PluginName;
  /** the host part of its address on the plugin network; null: the host's network */
  hostPart: number | null;
  /** the busybox image's command (the dns plugin's image has its own) */
  command: string[];
  /** files of the busybox image, path to content */
  files?: Record<string, string>;
  /** whether `POST /<plugin>/update` to the version in use is a 400 */
  refusesSameVersion: boolean;
}

/** A shell loop that logs what the plugin stands for, then waits for its stop. */
const idle = (what: string) => ['/bin/sh', '-c', `echo "${what}"; trap 'echo stopping; exit 0' TERM INT; while :; do sleep 3600 & wait $!; done`];

export const PLUGIN_SPECS: Record<PluginName, PluginSpec> = {
  dns: { name: 'dns', hostPart: 3, command: [], refusesSameVersion: true },
  audio: {
    name: 'audio',
    hostPart: 4,
    // no sound server runs on a plain host: the plugin answers empty card and stream lists (§11.2)
    command: idle('audio plugin: no sound server on this host, no cards and no streams'),
    refusesSameVersion: true,
  },
  cli: { name: 'cli', hostPart: 5, command: idle('cli plugin ready'), refusesSameVersion: false },
  observer: {
    name: 'observer',
    hostPart: 6,
    // the status page is written by the supervisor into the folder httpd serves
    command: ['/bin/httpd', '-f', '-v', '-p', '4357', '-h', '/www'],
    refusesSameVersion: false,
  },
  multicast: { name: 'multicast', hostPart: null, command: idle('multicast plugin: relaying on the host network'), refusesSameVersion: true },
};

/** The observer's port inside its container (and on the host by default). */
export const OBSERVER_PORT = 4357;
