// The default authentication: `Authorization: Bearer <key>`, one of the configured API keys.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, UnauthorizedException, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { setRequestTenant } from './request-tenant.js';
import { STORE_HTTP_OPTIONS, type ResolvedHttpOptions } from './store-http.options.js';

const BEARER = /^Bearer +(\S+) *$/i;
const sha256 = (text: string) => createHash('sha256').update(text).digest();

@Injectable()
export class ApiKeyGuard implements CanActivate {
  // Digests have one length whatever the key's, so timingSafeEqual compares them all in constant time.
  private readonly keys: { digest: Buffer; tenantId: string }[];

  constructor(@Inject(STORE_HTTP_OPTIONS) http: ResolvedHttpOptions) {
    this.keys = [...http.apiKeys!].map(([key, tenantId]) => ({ digest: sha256(key), tenantId }));
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<IncomingMessage>();
    const presented = BEARER.exec(request.headers.authorization ?? '')?.[1];
    const digest = sha256(presented ?? '');
    let tenantId: string | undefined;
    // Every key is compared, with no early exit, so the time taken says nothing about which keys exist.
    for (const key of this.keys) {
      if (timingSafeEqual(key.digest, digest)) tenantId = key.tenantId;
    }
    if (presented === undefined || tenantId === undefined) {
      const challenge = presented === undefined ? 'Bearer' : 'Bearer error="invalid_token"';
      context.switchToHttp().getResponse<ServerResponse>().setHeader('WWW-Authenticate', challenge);
      throw new UnauthorizedException('send a valid API key as "Authorization: Bearer <key>"');
    }
    setRequestTenant(request, tenantId);
    return true;
  }
}
