// One session: its header, its deletion, its export.
import { Readable } from 'node:stream';
import { Body, Delete, Get, HttpCode, HttpStatus, Inject, NotFoundException, Param, Patch, Post, Query, StreamableFile } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiProduces,
} from '@nestjs/swagger';
import type { ForkOptions } from '../lifecycle.types.js';
import type { SessionMeta } from '../session.types.js';
import { TenantStores } from '../stores/tenants/index.js';
import { SessionMetaResponse } from './dto/responses.js';
import { DeleteSessionQuery, ForkBody, SessionParams, UpdateSessionBody } from './dto/session.dto.js';
import { messageInput, plain } from './dto/store-inputs.js';
import { validated, type Validated } from './dto/validated.pipe.js';
import { RequestTenant } from './request-tenant.js';
import { ApiQueryOf, StoreApi } from './store-api.decorator.js';

@StoreApi('sessions/:id', 'sessions')
@ApiNotFoundResponse({ description: "No such session in the caller's tenant." })
export class SessionController {
  constructor(@Inject(TenantStores) private readonly tenants: TenantStores) {}

  @Get()
  @ApiOkResponse({ type: SessionMetaResponse })
  async get(@RequestTenant() tenant: string, @Param(validated(SessionParams)) { id }: Validated<SessionParams>): Promise<SessionMeta> {
    const meta = await this.tenants.forTenant(tenant).sessions.get(id);
    if (!meta) throw new NotFoundException(`session ${id} does not exist`);
    return meta;
  }

  @Patch()
  @ApiBody({ type: UpdateSessionBody })
  @ApiOkResponse({ type: SessionMetaResponse })
  update(
    @RequestTenant() tenant: string,
    @Param(validated(SessionParams)) { id }: Validated<SessionParams>,
    @Body(validated(UpdateSessionBody)) body: Validated<UpdateSessionBody>,
  ): Promise<SessionMeta> {
    return this.tenants.forTenant(tenant).sessions.update(id, plain({ title: body.title, metadata: body.metadata }));
  }

  /** A new session whose history is this one's, up to a point (SessionStore.fork). */
  @Post('fork')
  @ApiBody({ type: ForkBody })
  @ApiCreatedResponse({ type: SessionMetaResponse, description: "The fork's header; its forkedFrom names this session." })
  @ApiBadRequestResponse({ description: 'The fork point is not in the history, or leaves tool calls without their results.' })
  @ApiConflictResponse({ description: "The id is taken (or was a deleted session's)." })
  fork(
    @RequestTenant() tenant: string,
    @Param(validated(SessionParams)) { id }: Validated<SessionParams>,
    @Body(validated(ForkBody)) body: Validated<ForkBody>,
  ): Promise<SessionMeta> {
    const { replaceLastUserMessage, at } = body;
    return this.tenants.forTenant(tenant).sessions.fork(
      id,
      plain({
        id: body.id,
        title: body.title,
        metadata: body.metadata,
        at: at && plain({ seq: at.seq, position: at.position }),
        replaceLastUserMessage: replaceLastUserMessage && messageInput(replaceLastUserMessage),
        unansweredToolCalls: body.unansweredToolCalls,
      }) as ForkOptions, // `at` as sent: the store checks that it is { seq } or { position }
    );
  }

  /** Without cascade, only this session: its children become roots. With cascade=true, its whole subtree. */
  @Delete()
  @ApiQueryOf(DeleteSessionQuery)
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiNoContentResponse({ description: 'Deleted.' })
  async delete(
    @RequestTenant() tenant: string,
    @Param(validated(SessionParams)) { id }: Validated<SessionParams>,
    @Query(validated(DeleteSessionQuery)) { cascade }: Validated<DeleteSessionQuery>,
  ): Promise<void> {
    const transcripts = this.tenants.forTenant(tenant).transcripts;
    const deleted = cascade ? (await transcripts.deleteTranscript(id)) > 0 : await transcripts.removeTranscript(id);
    if (!deleted) throw new NotFoundException(`session ${id} does not exist`);
  }

  @Get('export')
  @ApiProduces('application/x-ndjson')
  @ApiOkResponse({ description: 'The session as JSONL: its header, its log in order, then its subsessions.', schema: { type: 'string' } })
  async export(@RequestTenant() tenant: string, @Param(validated(SessionParams)) { id }: Validated<SessionParams>): Promise<StreamableFile> {
    const lines = this.tenants.forTenant(tenant).sessions.exportJsonl(id)[Symbol.asyncIterator]();
    // exportJsonl checks the session on its first step: a missing one is a 404 before any byte is sent.
    const first = await lines.next();
    return new StreamableFile(Readable.from(continuing(first, lines)), { type: 'application/x-ndjson' });
  }
}

async function* continuing(first: IteratorResult<string>, rest: AsyncIterator<string>): AsyncGenerator<string> {
  try {
    for (let step = first; !step.done; step = await rest.next()) yield step.value;
  } finally {
    // A client that hangs up ends the export early: let exportJsonl release its snapshot.
    await rest.return?.();
  }
}
