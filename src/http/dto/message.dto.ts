// Bodies and queries of the message, history, transcript and entry routes.
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { Allow, IsArray, IsIn, IsInt, IsObject, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import { MAX_MESSAGE_PAGE } from '../../stores/messages/index.js';
import { MESSAGE_ROLES, type JsonObject, type JsonValue, type MessageInput, type MessageRole } from '../../message.types.js';
import { ANY_JSON, JSON_OBJECT, MESSAGE_CONTENT } from './schemas.js';
import { AsSent, MaxItems } from './validated.pipe.js';
import { IsInstant, IsMessageContent, IsPageLimit, IsQuerySeq } from './validation.js';

/** The most items an array of a body may hold: validating and storing 30,000 messages held the event loop for seconds. */
export const MAX_ARRAY_ITEMS = 1000;

export class MessageBody {
  @ApiProperty({ type: String, enum: MESSAGE_ROLES })
  @IsIn(MESSAGE_ROLES)
  role!: MessageRole;

  @ApiProperty({
    ...MESSAGE_CONTENT,
    description: "A string, or parts shaped like the Vercel AI SDK's (text, image, file, reasoning, tool-call, tool-result), kept as given.",
  })
  @IsMessageContent()
  @AsSent()
  content!: MessageInput['content'];

  @ApiPropertyOptional({ type: String, description: 'Your own id for the message.' })
  @IsOptional()
  @IsString()
  id?: string;

  @ApiPropertyOptional(JSON_OBJECT)
  @IsOptional()
  @IsObject()
  @AsSent()
  metadata?: JsonObject;

  @ApiPropertyOptional({ ...JSON_OBJECT, description: "Provider-specific options, by provider (the AI SDK's providerOptions)." })
  @IsOptional()
  @IsObject()
  @AsSent()
  providerOptions?: JsonObject;

  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'Default: the time of the write.' })
  @IsOptional()
  @IsInstant()
  createdAt?: string;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'array' },
    example: [[['content', 0, 'image'], 'Uint8Array']],
    description:
      'Where content, metadata and providerOptions hold a URL, bytes or a Date, as [path, type] pairs (type: URL, Uint8Array, ArrayBuffer or Date); ' +
      'the value at each path is its text: the URL, base64, or the ISO date. Responses carry the same.',
  })
  @IsOptional()
  @IsArray()
  @AsSent()
  valueTypes?: unknown[];
}

export class MessagesBody {
  @ApiProperty({ type: [MessageBody], maxItems: MAX_ARRAY_ITEMS })
  @IsArray()
  @MaxItems(MAX_ARRAY_ITEMS)
  @ValidateNested({ each: true })
  @Type(() => MessageBody)
  messages!: MessageBody[];
}

export class TranscriptBody extends MessagesBody {
  @ApiPropertyOptional({ type: [String], maxItems: MAX_ARRAY_ITEMS, description: 'The subsessions, in registration order; each must be free to attach.' })
  @IsOptional()
  @IsArray()
  @MaxItems(MAX_ARRAY_ITEMS)
  @IsString({ each: true })
  subsessions?: string[];

  @ApiPropertyOptional(JSON_OBJECT)
  @IsOptional()
  @IsObject()
  @AsSent()
  metadata?: JsonObject;
}

const EXPECTED_START_SEQ = {
  type: 'integer',
  minimum: 1,
  nullable: true,
  description:
    'The startSeq of the history pages this was made from. When the history starts elsewhere now (another compaction or repair, a clear or a replacement came after the read), nothing is written and the answer is 409: read the history again. Absent: not checked.',
} as const;

export class CompactionBody extends MessagesBody {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'How many messages of the effective history the summary replaces.' })
  @IsInt()
  sourceMessageCount!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'How many of `messages` are kept verbatim.' })
  @IsInt()
  retainedMessageCount!: number;

  @ApiPropertyOptional(EXPECTED_START_SEQ)
  @IsOptional()
  @IsInt()
  @Min(1)
  expectedStartSeq?: number | null;
}

export class RepairBody {
  @ApiProperty({ type: MessageBody, description: 'The synthetic message the repair adds, kept as evidence.' })
  @IsObject()
  @ValidateNested()
  @Type(() => MessageBody)
  repairMessage!: MessageBody;

  @ApiProperty({ type: [MessageBody], maxItems: MAX_ARRAY_ITEMS })
  @IsArray()
  @MaxItems(MAX_ARRAY_ITEMS)
  @ValidateNested({ each: true })
  @Type(() => MessageBody)
  balancedMessages!: MessageBody[];

  @ApiProperty({ type: 'integer', minimum: 0 })
  @IsInt()
  sourceMessageCount!: number;

  @ApiPropertyOptional(EXPECTED_START_SEQ)
  @IsOptional()
  @IsInt()
  @Min(1)
  expectedStartSeq?: number | null;
}

export class EventBody {
  @ApiProperty({
    type: String,
    example: 'tool-approval',
    description: "Yours: not ChatStore's (ui-message, ui-message-order), nor a framework binding's (openai-agents.item, …), which only they write (400).",
  })
  @IsString()
  type!: string;

  @ApiPropertyOptional(ANY_JSON)
  @Allow()
  @AsSent()
  data?: JsonValue;
}

export class SubsessionBody {
  @ApiProperty({ type: String, description: 'The session to register as a subsession of this one.' })
  @IsString()
  childId!: string;
}

export class PageQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_MESSAGE_PAGE, default: 100, description: 'Plain decimal digits.' })
  @IsOptional()
  @IsPageLimit(MAX_MESSAGE_PAGE)
  limit?: number;

  @ApiPropertyOptional({ type: String, description: 'The nextCursor of the previous page.' })
  @IsOptional()
  @IsString()
  cursor?: string;
}

export class LogPageQuery extends PageQuery {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    description: 'Start at the first entry whose seq is at least this, instead of a cursor. Plain decimal digits.',
  })
  @IsOptional()
  @IsQuerySeq()
  fromSeq?: number;
}
