// A session's log of entries: messages and typed events, as SessionStore keeps them.
import { Body, Get, Inject, Param, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiExtraModels, ApiNotFoundResponse, ApiOkResponse, getSchemaPath } from '@nestjs/swagger';
import { TenantStores } from '../tenant-stores.js';
import { EntryValidationPipe } from './dto/entry.pipe.js';
import { EventBody, MessageBody } from './dto/message.dto.js';
import { EntriesResponse, StoredEventResponse, StoredMessageResponse } from './dto/responses.js';
import { SessionParams } from './dto/session.dto.js';
import { entryInput } from './dto/store-inputs.js';
import { validated, type Validated } from './dto/validated.pipe.js';
import { wireEntry } from './dto/wire.js';
import { RequestTenant } from './request-tenant.js';
import { StoreApi } from './store-api.decorator.js';

@StoreApi('sessions/:id', 'entries')
@ApiExtraModels(MessageBody, EventBody, StoredMessageResponse, StoredEventResponse)
@ApiNotFoundResponse({ description: "No such session in the caller's tenant." })
export class EntriesController {
  constructor(@Inject(TenantStores) private readonly tenants: TenantStores) {}

  @Post('entries')
  @ApiBody({ schema: { oneOf: [{ $ref: getSchemaPath(MessageBody) }, { $ref: getSchemaPath(EventBody) }] }, description: 'A message (it has a role) or an event.' })
  @ApiCreatedResponse({ schema: { oneOf: [{ $ref: getSchemaPath(StoredMessageResponse) }, { $ref: getSchemaPath(StoredEventResponse) }] } })
  async append(
    @RequestTenant() tenant: string,
    @Param(validated(SessionParams)) { id }: Validated<SessionParams>,
    @Body(new EntryValidationPipe()) entry: Validated<MessageBody | EventBody>,
  ) {
    return wireEntry(await this.tenants.forTenant(tenant).sessions.append(id, entryInput(entry)));
  }

  @Get('entries')
  @ApiOkResponse({ type: EntriesResponse, description: 'Every entry in append order.' })
  async entries(@RequestTenant() tenant: string, @Param(validated(SessionParams)) { id }: Validated<SessionParams>) {
    return { entries: (await this.tenants.forTenant(tenant).sessions.load(id)).map(wireEntry) };
  }
}
