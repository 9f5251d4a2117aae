/**
 * The component a WebSocket command belongs to, read from its type as the original names its
 * commands: `<domain>/...` for an integration's own, a bare name for websocket_api's. A few
 * families are named otherwise than their component; `hearth/` is Hearth's own, no component.
 */
const FAMILIES: Record<string, string | null> = {
  config_entries: 'config',
  supervisor: 'hassio',
  hearth: null,
  // the MQTT integration lists itself while it is set up (a broker is known), not for its commands
  mqtt: null,
};

/** The component of one command type, or null for Hearth's own commands. */
export function componentOfCommand(type: string): string | null {
  const slash = type.indexOf('/');
  if (slash < 0) return 'websocket_api';
  const family = type.slice(0, slash);
  return Object.hasOwn(FAMILIES, family) ? FAMILIES[family] : family;
}

/** The components of a table's command types, each once. */
export function componentsOfCommands(types: Iterable<string>): Set<string> {
  const names = new Set<string>();
  for (const type of types) {
    const name = componentOfCommand(type);
    if (name !== null) names.add(name);
  }
  return names;
}
