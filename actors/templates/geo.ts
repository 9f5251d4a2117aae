import { fn, type FilterFn, type RenderEnv } from './render-env.ts';
import { TemplateState, expand, resolveState } from './states.ts';
import { validEntityId } from '../entities/state.ts';
import { Undefined, dictGet, float, isDict, isNumber, numberOf, pyRound, toFloat } from './values.ts';

/**
 * distance() and closest(): the original's Vincenty distance on the WGS-84 ellipsoid, from the
 * home (the core configuration's latitude and longitude) or between points and states, in the
 * unit system's length unit (km, or mi for us_customary).
 */

const AXIS_A = 6378137;
const FLATTENING = 1 / 298.257223563;
const AXIS_B = 6356752.314245;
const MAX_ITERATIONS = 200;
const CONVERGENCE_THRESHOLD = 1e-12;
const METERS_PER_MILE = 1609.344;

/** Vincenty's inverse formula: kilometres, rounded to the metre's thousandth, or null when it does not converge. */
export function vincenty(lat1: number, lon1: number, lat2: number, lon2: number): number | null {
  if (lat1 === lat2 && lon1 === lon2) return 0;
  const rad = Math.PI / 180;
  const U1 = Math.atan((1 - FLATTENING) * Math.tan(lat1 * rad));
  const U2 = Math.atan((1 - FLATTENING) * Math.tan(lat2 * rad));
  const L = (lon2 - lon1) * rad;
  let lambda = L;
  const sinU1 = Math.sin(U1);
  const cosU1 = Math.cos(U1);
  const sinU2 = Math.sin(U2);
  const cosU2 = Math.cos(U2);
  let sinSigma = 0;
  let cosSigma = 0;
  let sigma = 0;
  let cosSqAlpha = 0;
  let cos2SigmaM = 0;
  let converged = false;
  for (let i = 0; i < MAX_ITERATIONS; i++) {
    const sinLambda = Math.sin(lambda);
    const cosLambda = Math.cos(lambda);
    sinSigma = Math.sqrt((cosU2 * sinLambda) ** 2 + (cosU1 * sinU2 - sinU1 * cosU2 * cosLambda) ** 2);
    if (sinSigma === 0) return 0;
    cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda;
    sigma = Math.atan2(sinSigma, cosSigma);
    const sinAlpha = (cosU1 * cosU2 * sinLambda) / sinSigma;
    cosSqAlpha = 1 - sinAlpha ** 2;
    cos2SigmaM = cosSqAlpha === 0 ? 0 : cosSigma - (2 * sinU1 * sinU2) / cosSqAlpha;
    const C = (FLATTENING / 16) * cosSqAlpha * (4 + FLATTENING * (4 - 3 * cosSqAlpha));
    const previous = lambda;
    lambda = L + (1 - C) * FLATTENING * sinAlpha * (sigma + C * sinSigma * (cos2SigmaM + C * cosSigma * (-1 + 2 * cos2SigmaM ** 2)));
    if (Math.abs(lambda - previous) < CONVERGENCE_THRESHOLD) {
      converged = true;
      break;
    }
  }
  if (!converged) return null;
  const uSq = (cosSqAlpha * (AXIS_A ** 2 - AXIS_B ** 2)) / AXIS_B ** 2;
  const A = 1 + (uSq / 16384) * (4096 + uSq * (-768 + uSq * (320 - 175 * uSq)));
  const B = (uSq / 1024) * (256 + uSq * (-128 + uSq * (74 - 47 * uSq)));
  const deltaSigma =
    B * sinSigma * (cos2SigmaM + (B / 4) * (cosSigma * (-1 + 2 * cos2SigmaM ** 2) - (B / 6) * cos2SigmaM * (-3 + 4 * sinSigma ** 2) * (-3 + 4 * cos2SigmaM ** 2)));
  const km = (AXIS_B * A * (sigma - deltaSigma)) / 1000;
  return pyRound(km, 6);
}

/** Metres between two points, as the unit system shows lengths. */
function inUnits(r: RenderEnv, meters: number): number {
  return r.world.location.metric ? meters / 1000 : meters / METERS_PER_MILE;
}

/** The latitude and longitude of a state, when it has them. */
function locationOf(r: RenderEnv, s: TemplateState): [number, number] | undefined {
  const attrs = s.attr('attributes', r);
  if (!isDict(attrs)) return undefined;
  const lat = dictGet(attrs, 'latitude');
  const lon = dictGet(attrs, 'longitude');
  if (!isNumber(lat) || !isNumber(lon) || typeof lat === 'boolean' || typeof lon === 'boolean') return undefined;
  return [numberOf(lat), numberOf(lon)];
}

/** The original's convert(value, float): a number, or undefined. */
function coordinate(v: unknown): number | undefined {
  if (v instanceof Undefined) return undefined;
  try {
    return toFloat(v);
  } catch {
    return undefined;
  }
}

function distance(r: RenderEnv, args: unknown[]): unknown {
  const points: [number, number][] = [];
  const rest = [...args];
  while (rest.length) {
    const value = rest.shift();
    const state = typeof value === 'string' && !validEntityId(value) ? null : resolveState(r, value);
    if (!state) {
      if (!rest.length) return null;
      const lat = coordinate(value);
      const lon = coordinate(rest.shift());
      if (lat === undefined || lon === undefined) return null;
      points.push([lat, lon]);
      continue;
    }
    const loc = locationOf(r, state);
    if (!loc) return null;
    points.push(loc);
  }
  if (!points.length) return null;
  const [from, to] = points.length === 1 ? [[r.world.location.latitude, r.world.location.longitude] as [number, number], points[0]] : [points[0], points[1]];
  const km = vincenty(from[0], from[1], to[0], to[1]);
  return km === null ? null : float(inUnits(r, km * 1000));
}

function closest(r: RenderEnv, args: unknown[]): TemplateState | null {
  let lat: number;
  let lon: number;
  let entities: unknown;
  if (args.length === 1) {
    lat = r.world.location.latitude;
    lon = r.world.location.longitude;
    entities = args[0];
  } else if (args.length === 2) {
    const point = resolveState(r, args[0]);
    const loc = point && locationOf(r, point);
    if (!loc) return null;
    [lat, lon] = loc;
    entities = args[1];
  } else {
    const a = coordinate(args[0]);
    const b = coordinate(args[1]);
    if (a === undefined || b === undefined) return null;
    lat = a;
    lon = b;
    entities = args[2];
  }
  let best: TemplateState | null = null;
  let bestDistance = Infinity;
  for (const s of expand(r, [entities])) {
    const loc = locationOf(r, s);
    if (!loc) continue;
    const d = vincenty(loc[0], loc[1], lat, lon) ?? 0;
    if (d < bestDistance) {
      best = s;
      bestDistance = d;
    }
  }
  return best;
}

export const GEO_GLOBALS: Record<string, unknown> = {
  distance: fn('distance', (r, a) => distance(r, a)),
  closest: fn('closest', (r, a) => closest(r, a)),
};

export const GEO_FILTERS: Record<string, FilterFn> = {
  // as a filter the entities come first: `states.device_tracker | closest(lat, lon)`
  closest: (r, v, a) => closest(r, [...a, v]),
};
