import { assign, fromCallback, setup } from 'xstate';

/**
 * What a connection is told when it starts: the broker's settings as the actor layer made them
 * (opaque here), and how it reaches the broker's name in log lines.
 */
export interface MqttConnectionInput {
  /** `host:port`, for the log lines */
  broker: string;
}

export interface MqttConnectionContext {
  broker: string;
  /** failed attempts since the last connection: the backoff grows with them */
  attempt: number;
  /** an outage was reported and its end is still to be reported */
  outage: boolean;
  /** why the last attempt or connection ended */
  reason: string;
}

export type MqttConnectionEvent =
  | { type: 'connected' }
  | { type: 'lost'; reason: string }
  | { type: 'stop' };

/** The wait before the next attempt: 1 s, doubling per failure, at most the original's 10 s. */
export function backoffMs(attempt: number): number {
  return Math.min(1000 * 2 ** Math.max(0, attempt - 1), 10_000);
}

/**
 * The connection to the broker. `online` holds the client (the `session` actor, supplied by the
 * actor layer): `connecting` until the broker accepts, then `connected`. When the session ends
 * (refused, unreachable, dropped) the machine waits (`backoff`) and opens a new session. An
 * outage is reported once when it starts and once when it ends, whatever the number of attempts
 * in between; the first connection of a start is reported as a recovery too.
 */
export const mqttConnectionMachine = setup({
  types: {
    context: {} as MqttConnectionContext,
    events: {} as MqttConnectionEvent,
    input: {} as MqttConnectionInput,
  },
  actions: {
    /** the broker accepted: subscriptions again, the birth message, entities available */
    connectionMade: () => {},
    /** a session ended: `first` of an outage gets one log line and makes entities unavailable */
    outageBegan: (_, _params: { first: boolean; reason: string }) => {},
    /** a connection after an outage (or the first one): one log line */
    outageEnded: () => {},
  },
  actors: {
    // supplied by the actor layer (a client of the broker): sends `connected`, then `lost` when it ends
    session: fromCallback<MqttConnectionEvent, { broker: string }>(() => {
      throw new Error('session was not provided');
    }),
  },
  delays: {
    backoff: ({ context }) => backoffMs(context.attempt),
  },
  guards: {
    inOutage: ({ context }) => context.outage,
  },
}).createMachine({
  id: 'mqtt_connection',
  context: ({ input }) => ({ broker: input.broker, attempt: 0, outage: false, reason: '' }),
  initial: 'online',
  states: {
    online: {
      invoke: { src: 'session', input: ({ context }) => ({ broker: context.broker }) },
      initial: 'connecting',
      on: {
        lost: {
          target: 'waiting',
          actions: [
            assign({ attempt: ({ context }) => context.attempt + 1, reason: ({ event }) => event.reason }),
            {
              type: 'outageBegan',
              params: ({ context, event }: { context: MqttConnectionContext; event: MqttConnectionEvent }) => ({
                first: !context.outage,
                reason: event.type === 'lost' ? event.reason : '',
              }),
            },
            assign({ outage: true }),
          ],
        },
        stop: 'stopped',
      },
      states: {
        connecting: {
          on: {
            connected: {
              target: 'connected',
              actions: ['outageEnded', assign({ attempt: 0, outage: false }), 'connectionMade'],
            },
          },
        },
        connected: {},
      },
    },
    waiting: {
      after: { backoff: 'online' },
      on: { stop: 'stopped' },
    },
    stopped: { type: 'final' },
  },
});
