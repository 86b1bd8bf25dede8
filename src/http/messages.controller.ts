// A session's messages: appends, the effective history, compactions and repairs.
import { Body, Delete, Get, HttpCode, HttpStatus, Inject, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiConflictResponse, ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse } from '@nestjs/swagger';
import { TenantStores } from '../stores/tenants/index.js';
import { CompactionBody, MessageBody, MessagesBody, PageQuery, RepairBody } from './dto/message.dto.js';
import { CountResponse, HistoryPageResponse, MessagesResponse, RepairsResponse, StoredMessageResponse } from './dto/responses.js';
import { SessionParams } from './dto/session.dto.js';
import { messageInput, messageInputs, plain } from './dto/store-inputs.js';
import { validated, type Validated } from './dto/validated.pipe.js';
import { wireMessage, wireMessages, wirePage, wireRepair } from './dto/wire.js';
import { RequestTenant } from './request-tenant.js';
import { ApiQueryOf, StoreApi } from './store-api.decorator.js';

const STALE_READ =
  'expectedStartSeq is not where the history starts now: another compaction or repair, a clear or a replacement came after the read. Nothing was written; read the history again.';

/**
 * Compactions and repairs answer 204: the store returns nothing to name them
 * by, and the new effective history is one GET of /history away.
 */
@StoreApi('sessions/:id', 'messages')
@ApiNotFoundResponse({ description: "No such session in the caller's tenant." })
export class MessagesController {
  constructor(@Inject(TenantStores) private readonly tenants: TenantStores) {}

  @Post('messages')
  @ApiBody({ type: MessageBody })
  @ApiCreatedResponse({ type: StoredMessageResponse })
  async append(
    @RequestTenant() tenant: string,
    @Param(validated(SessionParams)) { id }: Validated<SessionParams>,
    @Body(validated(MessageBody)) message: Validated<MessageBody>,
  ) {
    return wireMessage(await this.tenants.forTenant(tenant).messages.append(id, messageInput(message)));
  }

  @Post('messages/batch')
  @ApiBody({ type: MessagesBody, description: 'Appended atomically: all or none.' })
  @ApiCreatedResponse({ type: MessagesResponse })
  async appendMany(
    @RequestTenant() tenant: string,
    @Param(validated(SessionParams)) { id }: Validated<SessionParams>,
    @Body(validated(MessagesBody)) body: Validated<MessagesBody>,
  ) {
    return { messages: wireMessages(await this.tenants.forTenant(tenant).messages.appendMany(id, messageInputs(body.messages))) };
  }

  @Get('history')
  @ApiQueryOf(PageQuery)
  @ApiOkResponse({ type: HistoryPageResponse, description: 'The effective history (what the model sees), a page at a time.' })
  @ApiConflictResponse({ description: 'A compaction or repair since the cursor was handed out: start again from the first page.' })
  async history(
    @RequestTenant() tenant: string,
    @Param(validated(SessionParams)) { id }: Validated<SessionParams>,
    @Query(validated(PageQuery)) page: Validated<PageQuery>,
  ) {
    return wirePage(await this.tenants.forTenant(tenant).messages.getHistoryPage(id, plain({ limit: page.limit, cursor: page.cursor })));
  }

  @Put('history')
  @ApiBody({ type: MessagesBody, description: 'DESTRUCTIVE: the whole log, transcript included, is replaced by these messages.' })
  @ApiOkResponse({ type: MessagesResponse })
  async replaceHistory(
    @RequestTenant() tenant: string,
    @Param(validated(SessionParams)) { id }: Validated<SessionParams>,
    @Body(validated(MessagesBody)) body: Validated<MessagesBody>,
  ) {
    return { messages: wireMessages(await this.tenants.forTenant(tenant).messages.replaceHistory(id, messageInputs(body.messages))) };
  }

  @Delete('history')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiNoContentResponse({ description: "Removed the session's messages, events, compactions and repairs; the session stays." })
  clear(@RequestTenant() tenant: string, @Param(validated(SessionParams)) { id }: Validated<SessionParams>): Promise<void> {
    return this.tenants.forTenant(tenant).messages.clear(id);
  }

  @Get('count')
  @ApiOkResponse({ type: CountResponse, description: 'The length of the effective history.' })
  async count(@RequestTenant() tenant: string, @Param(validated(SessionParams)) { id }: Validated<SessionParams>): Promise<{ count: number }> {
    return { count: await this.tenants.forTenant(tenant).messages.count(id) };
  }

  @Post('compactions')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiBody({ type: CompactionBody })
  @ApiNoContentResponse({ description: 'The compaction boundary is appended; nothing is deleted.' })
  @ApiConflictResponse({ description: STALE_READ })
  compact(
    @RequestTenant() tenant: string,
    @Param(validated(SessionParams)) { id }: Validated<SessionParams>,
    @Body(validated(CompactionBody)) body: Validated<CompactionBody>,
  ): Promise<void> {
    return this.tenants
      .forTenant(tenant)
      .messages.appendCompaction(
        id,
        messageInputs(body.messages),
        body.sourceMessageCount,
        body.retainedMessageCount,
        plain({ expectedStartSeq: body.expectedStartSeq }),
      );
  }

  @Post('repairs')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiBody({ type: RepairBody })
  @ApiNoContentResponse({ description: 'The repair boundary is appended; its message is kept as evidence.' })
  @ApiConflictResponse({ description: STALE_READ })
  repair(
    @RequestTenant() tenant: string,
    @Param(validated(SessionParams)) { id }: Validated<SessionParams>,
    @Body(validated(RepairBody)) body: Validated<RepairBody>,
  ): Promise<void> {
    return this.tenants
      .forTenant(tenant)
      .messages.appendRepair(
        id,
        messageInput(body.repairMessage),
        messageInputs(body.balancedMessages),
        body.sourceMessageCount,
        plain({ expectedStartSeq: body.expectedStartSeq }),
      );
  }

  @Get('repairs')
  @ApiOkResponse({ type: RepairsResponse, description: 'The evidence of every repair, oldest first.' })
  async repairs(@RequestTenant() tenant: string, @Param(validated(SessionParams)) { id }: Validated<SessionParams>) {
    return { repairs: (await this.tenants.forTenant(tenant).messages.getRepairs(id)).map(wireRepair) };
  }
}
