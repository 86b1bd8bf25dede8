// The tenant a guard authenticated, carried from the guard to the route handler.
import { createParamDecorator, InternalServerErrorException, Logger, type ExecutionContext } from '@nestjs/common';
import { StoreValidationError } from '../store.errors.js';
import { idOf } from '../values/validation.js';

// A WeakMap rather than a property of the request: nothing a client sends can set it.
const tenants = new WeakMap<object, string>();
const logger = new Logger('AgentStoreHttp');

/**
 * Records the tenant that `request` acts for. A guard given as the `http.guard`
 * option must call it before it lets a request through.
 */
export function setRequestTenant(request: object, tenantId: string): void {
  try {
    tenants.set(request, idOf(tenantId, 'tenantId'));
  } catch (error) {
    // A bad tenant id here is the guard's bug, not the client's: not a 400.
    if (error instanceof StoreValidationError) throw new TypeError(`setRequestTenant: ${error.message}`, { cause: error });
    throw error;
  }
}

/**
 * The tenant the guard set. A request without one is refused with a 500 (and
 * the programming error is logged) rather than answered for some tenant:
 * fail closed, and loudly, since it is the server's fault, not the client's.
 */
export const RequestTenant = createParamDecorator((_data: unknown, context: ExecutionContext): string => {
  const tenant = tenants.get(context.switchToHttp().getRequest<object>());
  if (tenant !== undefined) return tenant;
  logger.error(
    `${context.getClass().name}.${context.getHandler().name}: the guard let the request through without calling setRequestTenant(request, tenantId); refused`,
  );
  throw new InternalServerErrorException();
});
