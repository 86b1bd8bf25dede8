// What every authenticated controller of the store shares: throttling, then authentication, and the store's error answers.
import { applyDecorators, Controller, UseFilters, UseGuards, type Type } from '@nestjs/common';
import { ApiBearerAuth, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { storeErrors } from './store-exception.filter.js';
import { StoreAuthGuard } from './store-auth.guard.js';
import { StoreThrottleGuard } from './store-throttle.guard.js';

/** A controller of the store's API at `path`, documented under `tag`. Guards run in order: throttled before authenticated. */
export const StoreApi = (path: string, tag: string) =>
  applyDecorators(
    Controller(path),
    UseGuards(StoreThrottleGuard, StoreAuthGuard),
    UseFilters(storeErrors),
    ApiTags(tag),
    ApiBearerAuth(),
    ...(path.includes(':id') ? [ApiParam({ name: 'id', type: String, description: 'The session id.' })] : []),
    ApiResponse({ status: 400, description: 'Invalid input: a non-whitelisted property, a bad id, JSON nested too deep…' }),
    ApiResponse({ status: 401, description: 'No valid API key.' }),
    ApiResponse({ status: 429, description: 'Too many requests from this client.' }),
  );

/**
 * Documents the properties of a query DTO as query parameters: tsx emits no
 * design:paramtypes for Swagger to find them by. The handler must type that
 * parameter with the store's option type, not the DTO class, or tsc-built code
 * would have Swagger document every parameter a second time.
 */
export const ApiQueryOf = (dto: Type) => ApiQuery({ type: dto });
