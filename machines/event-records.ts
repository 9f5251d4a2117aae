/**
 * The log records of a machine whose events are its records: each event `{type, ...data}` is
 * stored as `{type, data}`. An area's record union (`store/typed-records.ts`) takes these as
 * its members for the steps of the machine.
 */
export type RecordsOfEvents<E extends { type: string }> = E extends { type: string } ? { type: E['type']; data: Omit<E, 'type'> } : never;
