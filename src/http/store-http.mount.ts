// Mounts the HTTP API on StoreModule's dynamic module: what the `http` extra adds.
import type { DynamicModule } from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import { ApiKeyGuard } from './api-key.guard.js';
import { EntriesController } from './entries.controller.js';
import { HealthController } from './health.controller.js';
import { MessagesController } from './messages.controller.js';
import { SessionController } from './session.controller.js';
import { SessionsController } from './sessions.controller.js';
import { STORE_AUTHENTICATOR } from './store-auth.guard.js';
import { resolveHttpOptions, STORE_HTTP_OPTIONS, type StoreHttpOptions } from './store-http.options.js';
import { storeThrottlerProvider } from './store-throttle.guard.js';
import { TranscriptController } from './transcript.controller.js';

/** The controllers whose requests carry bodies, which the body middleware reads. */
export const BODY_CONTROLLERS = [SessionsController, SessionController, MessagesController, TranscriptController, EntriesController];

/**
 * Adds the controllers, the providers they need and the path prefix to
 * `definition`. The options are checked here, when forRoot or forRootAsync is
 * called, since the prefix and the guard shape the module itself.
 */
export function mountHttp(definition: DynamicModule, options: StoreHttpOptions): DynamicModule {
  const http = resolveHttpOptions(options);
  return {
    ...definition,
    // RouterModule sets the prefix on StoreModule's class, so an app has one HTTP mount.
    imports: [...(definition.imports ?? []), RouterModule.register([{ path: http.prefix, module: definition.module }])],
    controllers: [...(definition.controllers ?? []), ...BODY_CONTROLLERS, HealthController],
    providers: [
      ...(definition.providers ?? []),
      { provide: STORE_HTTP_OPTIONS, useValue: http },
      { provide: STORE_AUTHENTICATOR, useClass: http.guard ?? ApiKeyGuard },
      storeThrottlerProvider(http.throttle),
    ],
  };
}
