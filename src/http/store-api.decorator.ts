// What every authenticated controller of the store shares: throttling, then authentication, and the store's error answers.
import { applyDecorators, Controller, UseFilters, UseGuards, type Type } from '@nestjs/common';
import { ApiBearerAuth, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { MAX_ARRAY_ITEMS } from './dto/message.dto.js';
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
    ApiResponse({
      status: 400,
      description: `Invalid input: a non-whitelisted property, a bad id, an array of more than ${MAX_ARRAY_ITEMS} items, a query value not in its strict format, JSON nested too deep…`,
    }),
    ApiResponse({ status: 401, description: 'No valid API key.' }),
    ApiResponse({ status: 415, description: 'A body that is not JSON (JSONL for imports), or sent with a Content-Encoding other than identity.' }),
    ApiResponse({ status: 429, description: 'Too many requests from this client.' }),
  );

/**
 * Documents the properties of a query DTO as query parameters: tsx emits no
 * design:paramtypes for Swagger to find them by, and tsc emits `Object` for
 * the handler's `Validated<Dto>`, so Swagger never documents them twice.
 */
export const ApiQueryOf = (dto: Type) => ApiQuery({ type: dto });
