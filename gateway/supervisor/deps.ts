import type { Clock, Ids } from '../../actors/clock.ts';
import type { Logs } from '../../actors/logging/logs.ts';
import type { Settings } from '../../actors/supervisor/settings.ts';
import type { Tokens } from '../../actors/supervisor/tokens.ts';
import type { Engine } from '../../actors/supervisor/docker/engine.ts';
import type { Context } from '../../store/types.ts';

/** What the supervisor's handlers may reach: its actors, never the store. */
export interface SupervisorDeps {
  dataDir: string;
  clock: Clock;
  ids: Ids;
  logs: Logs;
  settings: Settings;
  tokens: Tokens;
  engine: Engine;
  /** `setup`, `running`, `freeze`, `stopping`... */
  state(): string;
  /** a fresh context for a change a caller asked for */
  context(): Context;
  /** asks the supervisor to restart its API (soft restart); resolves when asked */
  restart(): void;
}
