// A session's log of entries: messages and typed events, as SessionStore keeps them, and the whole log with its boundaries.
import { Body, Get, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiExtraModels, ApiNotFoundResponse, ApiOkResponse, getSchemaPath } from '@nestjs/swagger';
import { TenantStores } from '../stores/tenants/index.js';
import { EntryValidationPipe } from './dto/entry.pipe.js';
import { EventBody, LogPageQuery, MessageBody } from './dto/message.dto.js';
import { EntriesResponse, LogPageResponse, StoredEventResponse, StoredMessageResponse } from './dto/responses.js';
import { SessionParams } from './dto/session.dto.js';
import { entryInput, plain } from './dto/store-inputs.js';
import { validated, type Validated } from './dto/validated.pipe.js';
import { wireEntry } from './dto/wire.js';
import { RequestTenant } from './request-tenant.js';
import { ApiQueryOf, StoreApi } from './store-api.decorator.js';
import { logJson } from '../stores/sessions/index.js';

@StoreApi('sessions/:id', 'entries')
@ApiExtraModels(MessageBody, EventBody, StoredMessageResponse, StoredEventResponse)
@ApiNotFoundResponse({ description: "No such session in the caller's tenant." })
export class EntriesController {
  constructor(@Inject(TenantStores) private readonly tenants: TenantStores) {}

  @Post('entries')
  @ApiBody({
    schema: { oneOf: [{ $ref: getSchemaPath(MessageBody) }, { $ref: getSchemaPath(EventBody) }] },
    description: 'A message (it has a role) or an event.',
  })
  @ApiCreatedResponse({ schema: { oneOf: [{ $ref: getSchemaPath(StoredMessageResponse) }, { $ref: getSchemaPath(StoredEventResponse) }] } })
  async append(
    @RequestTenant() tenant: string,
    @Param(validated(SessionParams)) { id }: Validated<SessionParams>,
    @Body(new EntryValidationPipe()) entry: Validated<MessageBody | EventBody>,
  ) {
    return wireEntry(await this.tenants.forTenant(tenant).sessions.append(id, entryInput(entry)));
  }

  @Get('log')
  @ApiQueryOf(LogPageQuery)
  @ApiOkResponse({
    type: LogPageResponse,
    description: 'The whole log, a page at a time: messages, events, and the compaction and repair boundaries where they were written.',
  })
  async log(
    @RequestTenant() tenant: string,
    @Param(validated(SessionParams)) { id }: Validated<SessionParams>,
    @Query(validated(LogPageQuery)) page: Validated<LogPageQuery>,
  ) {
    const { entries, nextCursor } = await this.tenants
      .forTenant(tenant)
      .sessions.getLogPage(id, plain({ limit: page.limit, cursor: page.cursor, fromSeq: page.fromSeq }));
    return { entries: entries.map(logJson), nextCursor };
  }

  @Get('entries')
  @ApiOkResponse({ type: EntriesResponse, description: 'Every entry in append order.' })
  async entries(@RequestTenant() tenant: string, @Param(validated(SessionParams)) { id }: Validated<SessionParams>) {
    return { entries: (await this.tenants.forTenant(tenant).sessions.load(id)).map(wireEntry) };
  }
}
