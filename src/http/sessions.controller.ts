// The session collection: create, list, import.
import { Body, Get, Inject, Post, Query, UnsupportedMediaTypeException, type PipeTransform } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiCreatedResponse, ApiOkResponse } from '@nestjs/swagger';
import type { JsonlImport, SessionMeta, SessionPage } from '../session.types.js';
import { StoreNotFoundError } from '../store.errors.js';
import { TenantStores } from '../stores/tenants/index.js';
import { CreateSessionBody, ImportQuery, ListSessionsQuery } from './dto/session.dto.js';
import { ImportResponse, SessionMetaResponse, SessionPageResponse } from './dto/responses.js';
import { plain } from './dto/store-inputs.js';
import { validated, type Validated } from './dto/validated.pipe.js';
import { RequestTenant } from './request-tenant.js';
import { ApiQueryOf, StoreApi } from './store-api.decorator.js';

/** An import's body is JSONL text, which the body middleware leaves as a string. */
class JsonlBody implements PipeTransform<unknown, string> {
  transform(value: unknown): string {
    if (typeof value !== 'string') throw new UnsupportedMediaTypeException('send the session as JSONL, with "Content-Type: application/x-ndjson"');
    return value;
  }
}

@StoreApi('sessions', 'sessions')
export class SessionsController {
  constructor(@Inject(TenantStores) private readonly tenants: TenantStores) {}

  @Post()
  @ApiBody({ type: CreateSessionBody })
  @ApiCreatedResponse({ type: SessionMetaResponse })
  async create(@RequestTenant() tenant: string, @Body(validated(CreateSessionBody)) body: Validated<CreateSessionBody>): Promise<SessionMeta> {
    const sessions = this.tenants.forTenant(tenant).sessions;
    const id = await sessions.create(plain({ id: body.id, title: body.title, parentId: body.parentId, metadata: body.metadata }));
    // Null only if it was deleted in between.
    const meta = await sessions.get(id);
    if (!meta) throw new StoreNotFoundError(`session ${id} was deleted as it was created`);
    return meta;
  }

  @Get()
  @ApiQueryOf(ListSessionsQuery)
  @ApiOkResponse({ type: SessionPageResponse, description: "The tenant's sessions, newest first." })
  list(@RequestTenant() tenant: string, @Query(validated(ListSessionsQuery)) query: Validated<ListSessionsQuery>): Promise<SessionPage> {
    return this.tenants.forTenant(tenant).sessions.list(plain(query));
  }

  @Post('import')
  @ApiQueryOf(ImportQuery)
  @ApiConsumes('application/x-ndjson')
  @ApiBody({ schema: { type: 'string', description: 'A session as exported: JSONL, one entry per line.' } })
  @ApiCreatedResponse({ type: ImportResponse })
  import(
    @RequestTenant() tenant: string,
    @Query(validated(ImportQuery)) { sessionId, subsessions }: Validated<ImportQuery>,
    @Body(new JsonlBody()) jsonl: string,
  ): Promise<JsonlImport> {
    return this.tenants.forTenant(tenant).sessions.importJsonl(jsonl, plain({ sessionId, subsessions }));
  }
}
