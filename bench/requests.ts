// The requests the load generator sends, by name, so a child process can build them from plain
// options. The same bytes go to Hearth and to the raw uWS baseline.
import { httpRequest } from './http-client.ts';

export type RequestSpec =
  | {
      kind: 'post-state';
      token: string;
      /** writes are spread over this many entity ids (`sensor.bench_<n % ids>`) */
      ids: number;
      /** entity id prefix (default `sensor.bench_`) */
      prefix?: string;
    }
  | { kind: 'get'; token: string; path: string; headers?: Record<string, string> };

/** The body of the n-th state write: a realistic power sensor, a new state every time. */
export function stateBody(n: number, ids: number): string {
  const i = n % ids;
  return JSON.stringify({
    state: String(n),
    attributes: { unit_of_measurement: 'W', device_class: 'power', state_class: 'measurement', friendly_name: `Bench power ${i}` },
  });
}

/** A function giving the n-th request of a spec. */
export function requestMaker(spec: RequestSpec): (n: number) => string {
  if (spec.kind === 'post-state') {
    const prefix = spec.prefix ?? 'sensor.bench_';
    const auth = { Authorization: `Bearer ${spec.token}` };
    return (n) => httpRequest('POST', `/api/states/${prefix}${n % spec.ids}`, auth, stateBody(n, spec.ids));
  }
  const raw = httpRequest('GET', spec.path, { Authorization: `Bearer ${spec.token}`, ...spec.headers });
  return () => raw;
}
