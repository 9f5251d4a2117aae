/**
 * The original's optimistic rule for an entity (or one part of it): `optimistic: true`, or no
 * state topic to hear its state from (`stateTopic`, the option naming it); a command then sets
 * the state itself.
 */
export const isOptimisticFor = (config: { optimistic: boolean; [option: string]: unknown }, stateTopic = 'state_topic') =>
  config.optimistic || config[stateTopic] === undefined;
