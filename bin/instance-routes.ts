/**
 * The core's HTTP routes, each module registered on the instance's router (bin/instance.ts
 * builds the parts they serve). The WebSocket and the ingress hop are on the uWS app itself.
 */
import type { Clock, Ids } from '../actors/clock.ts';
import type { CoreAuthService } from '../actors/auth/index.ts';
import type { IpBans } from '../actors/auth/ip-bans.ts';
import { LoginThrottle } from '../actors/auth/login-throttle.ts';
import type { Conversation } from '../actors/conversation/index.ts';
import type { Mobile } from '../actors/mobile/index.ts';
import type { Hassio } from '../actors/supervisor-client/hassio.ts';
import type { AppPanels } from '../actors/supervisor-client/app-panels.ts';
import type { Router } from '../gateway/router.ts';
import type { CoreDeps } from '../gateway/core.ts';
import { registerApiRoutes } from '../gateway/routes/api.ts';
import { registerStreamRoute } from '../gateway/routes/stream.ts';
import { registerAuthRoutes } from '../gateway/routes/auth.ts';
import { registerAuthorizePage } from '../gateway/routes/authorize-page.ts';
import { registerDashboardRoutes } from '../gateway/routes/dashboard.ts';
import { registerOnboardingRoutes } from '../gateway/routes/onboarding.ts';
import { registerWellKnownRoutes } from '../gateway/routes/well-known.ts';
import { registerHistoryRoutes } from '../gateway/routes/history.ts';
import { registerLoggingRoutes } from '../gateway/routes/logging.ts';
import { registerTemplateRoutes } from '../gateway/routes/template.ts';
import { registerIntentRoutes } from '../gateway/routes/intent.ts';
import { registerConversationRoutes } from '../gateway/routes/conversation.ts';
import { registerMobileAppRoutes } from '../gateway/routes/mobile-app.ts';
import { registerHassioRoutes, supervisorIpOf } from '../gateway/routes/hassio.ts';
import { registerConfigFlowRoutes } from '../gateway/routes/config-flows.ts';

/** What the core's routes serve besides the CoreDeps. */
export interface CoreRouteParts {
  auth: CoreAuthService;
  bans: IpBans;
  clock: Clock;
  ids: Ids;
  conversation: Conversation;
  mobile: Mobile;
  /** config entries of integrations other than the phones' (MQTT's), listed beside them */
  otherEntries?: () => Record<string, unknown>[];
  /** the port this instance listens on, once it does */
  port: () => number;
  /** SSE keep-alive interval (tests shorten it) */
  streamPingMs?: number;
  /** the supervisor's integration, when a supervisor runs this core */
  hassio?: { hassio: Hassio; appPanels?: AppPanels; supervisorUrl?: string };
}

export function registerCoreRoutes(router: Router, deps: CoreDeps, parts: CoreRouteParts): void {
  const { auth, bans, clock, ids } = parts;
  registerApiRoutes(router, deps);
  registerStreamRoute(router, deps, { pingMs: parts.streamPingMs });
  registerAuthRoutes(router, { auth, bans, throttle: new LoginThrottle(clock) });
  registerAuthorizePage(router);
  registerDashboardRoutes(router);
  registerWellKnownRoutes(router, { coreConfig: deps.coreConfig, port: parts.port });
  registerOnboardingRoutes(router, { auth });
  registerLoggingRoutes(router, { logs: deps.logs });
  registerHistoryRoutes(router, deps);
  registerTemplateRoutes(router, deps);
  registerIntentRoutes(router, deps);
  registerConversationRoutes(router, { clock, ids, conversation: parts.conversation });
  registerMobileAppRoutes(router, { clock, ids, mobile: parts.mobile, otherEntries: parts.otherEntries });
  registerConfigFlowRoutes(router, deps);
  if (parts.hassio) {
    const { hassio, appPanels, supervisorUrl } = parts.hassio;
    registerHassioRoutes(router, { hassio, appPanels, auth, supervisorIp: supervisorIpOf(supervisorUrl) });
  }
}
