// StoreHttpModule: the HTTP API over one registration of the store, mounted by StoreModule's `http` extra
// (loaded by store-http.loader.ts once its optional peers are found).
import { Module, type DynamicModule, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import { ApiKeyGuard } from './api-key.guard.js';
import { EntriesController } from './entries.controller.js';
import { HealthController } from './health.controller.js';
import { MessagesController } from './messages.controller.js';
import { SessionController } from './session.controller.js';
import { SessionsController } from './sessions.controller.js';
import { STORE_AUTHENTICATOR } from './store-auth.guard.js';
import { StoreBodyMiddleware } from './store-body.middleware.js';
import { STORE_HTTP_OPTIONS, type ResolvedHttpOptions } from './store-http.options.js';
import { storeThrottlerProvider } from './store-throttle.guard.js';
import { TranscriptController } from './transcript.controller.js';
import { ViewerController } from './viewer.controller.js';

/** The controllers whose requests carry bodies, which the body middleware reads. */
const BODY_CONTROLLERS = [SessionsController, SessionController, MessagesController, TranscriptController, EntriesController];

@Module({})
export class StoreHttpModule implements NestModule {
  /**
   * The controllers, their guards and the path prefix over `store`, the
   * registration of the store's core module whose TenantStores and
   * StoreHealthIndicator the routes use.
   */
  static register(store: DynamicModule, http: ResolvedHttpOptions): DynamicModule {
    return {
      module: StoreHttpModule,
      // RouterModule sets the prefix on this module's class, so an app has one HTTP mount.
      imports: [store, RouterModule.register([{ path: http.prefix, module: StoreHttpModule }])],
      controllers: [...BODY_CONTROLLERS, HealthController, ...(http.viewer ? [ViewerController] : [])],
      providers: [
        { provide: STORE_HTTP_OPTIONS, useValue: http },
        { provide: STORE_AUTHENTICATOR, useClass: http.guard ?? ApiKeyGuard },
        storeThrottlerProvider(http.throttle),
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(StoreBodyMiddleware).forRoutes(...BODY_CONTROLLERS);
  }
}
