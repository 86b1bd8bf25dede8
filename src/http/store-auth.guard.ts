// Authentication of the store's routes: the API-key guard, or the guard given as `http.guard`.
import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';

/** The guard instance that authenticates: provided per StoreModule registration, since `http.guard` is chosen at runtime. */
export const STORE_AUTHENTICATOR = Symbol('StoreAuthenticator');

@Injectable()
export class StoreAuthGuard implements CanActivate {
  constructor(@Inject(STORE_AUTHENTICATOR) private readonly authenticator: CanActivate) {}

  canActivate(context: ExecutionContext) {
    return this.authenticator.canActivate(context);
  }
}
