// A session's transcript (every committed message) and its subsessions.
import { Body, Get, HttpCode, HttpStatus, Inject, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiConflictResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse } from '@nestjs/swagger';
import { TenantStores } from '../stores/tenants/index.js';
import { PageQuery, SubsessionBody, TranscriptBody } from './dto/message.dto.js';
import { SubsessionsResponse, TranscriptPageResponse, TranscriptResponse } from './dto/responses.js';
import { SessionParams } from './dto/session.dto.js';
import { messageInputs, plain } from './dto/store-inputs.js';
import { validated, type Validated } from './dto/validated.pipe.js';
import { wirePage } from './dto/wire.js';
import { RequestTenant } from './request-tenant.js';
import { ApiQueryOf, StoreApi } from './store-api.decorator.js';

@StoreApi('sessions/:id', 'transcripts')
@ApiNotFoundResponse({ description: "No such session in the caller's tenant." })
export class TranscriptController {
  constructor(@Inject(TenantStores) private readonly tenants: TenantStores) {}

  @Get('transcript')
  @ApiQueryOf(PageQuery)
  @ApiOkResponse({
    type: TranscriptPageResponse,
    description: 'Every committed message in append order, whatever was compacted or repaired, a page at a time.',
  })
  async transcript(
    @RequestTenant() tenant: string,
    @Param(validated(SessionParams)) { id }: Validated<SessionParams>,
    @Query(validated(PageQuery)) page: Validated<PageQuery>,
  ) {
    return wirePage(await this.tenants.forTenant(tenant).messages.getTranscriptPage(id, plain({ limit: page.limit, cursor: page.cursor })));
  }

  @Put('transcript')
  @ApiBody({ type: TranscriptBody, description: 'Replaces the whole transcript atomically: messages, metadata and subsessions.' })
  @ApiOkResponse({ type: TranscriptResponse })
  @ApiConflictResponse({ description: 'A subsession already has another parent, or would close a cycle.' })
  async saveTranscript(
    @RequestTenant() tenant: string,
    @Param(validated(SessionParams)) { id }: Validated<SessionParams>,
    @Body(validated(TranscriptBody)) body: Validated<TranscriptBody>,
  ) {
    return wirePage(
      await this.tenants
        .forTenant(tenant)
        .transcripts.saveTranscript(id, plain({ messages: messageInputs(body.messages), subsessions: body.subsessions, metadata: body.metadata })),
    );
  }

  @Post('subsessions')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiBody({ type: SubsessionBody })
  @ApiNoContentResponse({ description: 'Registered (idempotently).' })
  @ApiConflictResponse({ description: 'The child already has another parent, or the edge would close a cycle.' })
  addSubsession(
    @RequestTenant() tenant: string,
    @Param(validated(SessionParams)) { id }: Validated<SessionParams>,
    @Body(validated(SubsessionBody)) body: Validated<SubsessionBody>,
  ): Promise<void> {
    return this.tenants.forTenant(tenant).transcripts.addSubsession(id, body.childId);
  }

  @Get('subsessions')
  @ApiOkResponse({ type: SubsessionsResponse })
  async subsessions(@RequestTenant() tenant: string, @Param(validated(SessionParams)) { id }: Validated<SessionParams>): Promise<{ subsessions: string[] }> {
    return { subsessions: await this.tenants.forTenant(tenant).transcripts.getSubsessions(id) };
  }
}
