// GET /health: unauthenticated and not throttled, for load balancers and orchestrators.
import { Controller, Get, Inject, ServiceUnavailableException, UseFilters } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { StoreHealthIndicator, type StoreHealth } from '../stores/health/index.js';
import { storeErrors } from './store-exception.filter.js';

const HEALTH_SCHEMA = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ok', 'error'] },
    info: { type: 'object', additionalProperties: true },
    error: { type: 'object', additionalProperties: true },
    details: { type: 'object', additionalProperties: true, example: { agentStore: { status: 'up' } } },
  },
};

@Controller()
@UseFilters(storeErrors)
@ApiTags('health')
export class HealthController {
  constructor(@Inject(StoreHealthIndicator) private readonly indicator: StoreHealthIndicator) {}

  /** In the shape of @nestjs/terminus's health checks: 200 when up, 503 when down. */
  @Get('health')
  @ApiOkResponse({ schema: HEALTH_SCHEMA, description: 'The database answers and the migrations are applied.' })
  @ApiServiceUnavailableResponse({ schema: HEALTH_SCHEMA })
  async check(): Promise<{ status: 'ok'; info: StoreHealth; error: object; details: StoreHealth }> {
    const result = await this.indicator.isHealthy();
    if (result.agentStore.status === 'up') return { status: 'ok', info: result, error: {}, details: result };
    throw new ServiceUnavailableException({ status: 'error', info: {}, error: result, details: result });
  }
}
