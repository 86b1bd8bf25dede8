// The shapes the store's routes answer with, as OpenAPI schemas (documentation only: the stores build the values).
import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { MESSAGE_ROLES } from '../../message.types.js';
import { ANY_JSON, JSON_OBJECT, MESSAGE_CONTENT } from './schemas.js';

export class ForkOriginResponse {
  @ApiProperty({ type: String, description: 'The source session.' }) sessionId!: string;
  @ApiProperty({ type: 'integer', description: "The seq of the source's log the fork was taken at." }) seq!: number;
}

export class SessionMetaResponse {
  @ApiProperty({ type: String }) id!: string;
  @ApiProperty({ type: String, nullable: true }) tenantId!: string | null;
  @ApiProperty({ type: String, nullable: true }) title!: string | null;
  @ApiProperty({ type: String, nullable: true }) parentId!: string | null;
  @ApiProperty({ type: ForkOriginResponse, nullable: true, description: 'Where this session was forked from; null when it is not a fork.' })
  forkedFrom!: ForkOriginResponse | null;
  @ApiProperty({ ...JSON_OBJECT, nullable: true }) metadata!: object | null;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;
}

export class SessionPageResponse {
  @ApiProperty({ type: [SessionMetaResponse] }) sessions!: SessionMetaResponse[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page; null on the last.' }) nextCursor!: string | null;
}

/** What every returned message has; `seq` differs between the log and the effective history. */
abstract class MessageResponse {
  @ApiProperty({ type: String, enum: MESSAGE_ROLES }) role!: string;
  @ApiProperty(MESSAGE_CONTENT) content!: unknown;
  @ApiPropertyOptional({ type: String }) id?: string;
  @ApiPropertyOptional(JSON_OBJECT) metadata?: object;
  @ApiPropertyOptional(JSON_OBJECT) providerOptions?: object;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'array' },
    description: 'Present when content, metadata or providerOptions hold a URL, bytes or a Date: [path, type] pairs, the value at each path its text.',
  })
  valueTypes?: unknown[];
}

export class StoredMessageResponse extends MessageResponse {
  @ApiProperty({ type: 'integer', description: "The message's place in the session's log." }) seq!: number;
}

export class HistoryMessageResponse extends MessageResponse {
  @ApiProperty({ type: 'integer', nullable: true, description: 'null for a message a compaction or repair put in place.' }) seq!: number | null;
}

export class MessagesResponse {
  @ApiProperty({ type: [StoredMessageResponse] }) messages!: StoredMessageResponse[];
}

export class HistoryPageResponse {
  @ApiProperty({ type: [HistoryMessageResponse] }) messages!: HistoryMessageResponse[];
  @ApiProperty({ type: String, nullable: true }) nextCursor!: string | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description:
      'Where this history starts in the log: the seq of the latest compaction or repair, or of the first message (null: neither). Appends never change it. Send it as expectedStartSeq with a compaction or repair made from these pages.',
  })
  startSeq!: number | null;
}

export class TranscriptPageResponse {
  @ApiProperty({ type: [StoredMessageResponse] }) messages!: StoredMessageResponse[];
  @ApiProperty({ type: String, nullable: true }) nextCursor!: string | null;
}

export class TranscriptResponse {
  @ApiProperty({ type: [StoredMessageResponse] }) messages!: StoredMessageResponse[];
  @ApiProperty({ type: [String] }) subsessions!: string[];
  @ApiProperty({ ...JSON_OBJECT, nullable: true }) metadata!: object | null;
}

export class CountResponse {
  @ApiProperty({ type: 'integer' }) count!: number;
}

export class RepairResponse {
  @ApiProperty({ type: 'integer' }) seq!: number;
  @ApiProperty({ type: StoredMessageResponse }) repairMessage!: StoredMessageResponse;
  @ApiProperty({ type: 'integer' }) sourceMessageCount!: number;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
}

export class RepairsResponse {
  @ApiProperty({ type: [RepairResponse] }) repairs!: RepairResponse[];
}

export class SubsessionsResponse {
  @ApiProperty({ type: [String], description: 'The children, in registration order.' }) subsessions!: string[];
}

export class StoredEventResponse {
  @ApiProperty({ type: 'integer' }) seq!: number;
  @ApiProperty({ type: String }) type!: string;
  @ApiProperty(ANY_JSON) data!: unknown;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
}

export class EntriesResponse {
  @ApiProperty({ type: 'array', items: { oneOf: [{ $ref: getSchemaPath(StoredMessageResponse) }, { $ref: getSchemaPath(StoredEventResponse) }] } })
  entries!: unknown[];
}

export class LogPageResponse {
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description:
      'The log in seq order, each entry as a line of the JSONL export: { type: "message", seq, message }, { type: "event", seq, event, createdAt }, ' +
      '{ type: "compaction", seq, cutSeq, messages, sourceMessageCount, retainedMessageCount, createdAt } or { type: "repair", seq, cutSeq, messages, sourceMessageCount, repairMessage, createdAt }.',
  })
  entries!: unknown[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page; null on the last.' }) nextCursor!: string | null;
}

export class ImportResponse {
  @ApiProperty({ type: String }) sessionId!: string;
  @ApiProperty({ type: 'integer', description: 'Log entries imported: messages, events, compactions and repairs.' }) entries!: number;
  @ApiProperty({ type: [String], description: 'E.g. a crash-truncated last line that was skipped.' }) warnings!: string[];
}
