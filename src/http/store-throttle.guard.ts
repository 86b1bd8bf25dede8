// Rate limiting of the store's routes with @nestjs/throttler, apart from any ThrottlerModule of the app.
import {
  HttpException,
  HttpStatus,
  Inject,
  Injectable,
  type CanActivate,
  type ExecutionContext,
  type FactoryProvider,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { ThrottlerGuard, ThrottlerStorageService } from '@nestjs/throttler';
import type { ResolvedHttpOptions } from './store-http.options.js';

/**
 * The store's own ThrottlerGuard and counters. ThrottlerModule.forRoot is
 * global, so registering it here would replace the app's options (or be
 * replaced by them): the guard is built directly instead, from our options.
 */
class StoreThrottler implements OnApplicationShutdown {
  constructor(
    readonly guard: ThrottlerGuard,
    private readonly storage: ThrottlerStorageService,
  ) {}

  onApplicationShutdown(): void {
    this.storage.onApplicationShutdown();
  }
}

const STORE_THROTTLER = Symbol('StoreThrottler');

export function storeThrottlerProvider(throttle: ResolvedHttpOptions['throttle']): FactoryProvider {
  return {
    provide: STORE_THROTTLER,
    inject: [Reflector],
    useFactory: async (reflector: Reflector) => {
      if (!throttle) return null;
      // Loaded only when used: @nestjs/throttler is CommonJS that require()s ESM-only Nest,
      // which Jest cannot load before Node 24.9; an app that never throttles never loads it.
      const { ThrottlerGuard, ThrottlerStorageService } = await import('@nestjs/throttler');
      const storage = new ThrottlerStorageService();
      const guard = new ThrottlerGuard(
        {
          throttlers: [{ limit: throttle.limit, ttl: throttle.ttlMs }],
          // One budget per client across every route, not one per route: guessing keys on 20 routes gains nothing.
          generateKey: (_context, tracker, name) => `agent-store:${name}:${tracker}`,
        },
        storage,
        reflector,
      );
      await guard.onModuleInit();
      return new StoreThrottler(guard, storage);
    },
  };
}

@Injectable()
export class StoreThrottleGuard implements CanActivate {
  constructor(@Inject(STORE_THROTTLER) private readonly throttler: StoreThrottler | null) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.throttler) return true;
    try {
      return await this.throttler.guard.canActivate(context);
    } catch (error) {
      if (error instanceof HttpException || (error as Error)?.name !== 'ThrottlerException') throw error;
      // Under tsx, the throttler's require() loads a copy of @nestjs/common of its own,
      // whose exceptions are no HttpExceptions of ours: they would answer 500.
      throw new HttpException((error as Error).message, HttpStatus.TOO_MANY_REQUESTS);
    }
  }
}
