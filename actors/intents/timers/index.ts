/** Voice timers (CoreStartTimer and friends): the manager, the selection rules, the handlers. */
export * from './manager.ts';
export * from './find.ts';
export * from './handlers.ts';
