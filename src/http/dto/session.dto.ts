// Params, queries and bodies of the session routes.
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import type { JsonObject } from '../../message.types.js';
import { MAX_SESSION_PAGE } from '../../stores/sessions/index.js';
import { MessageBody } from './message.dto.js';
import { JSON_OBJECT } from './schemas.js';
import { AsSent } from './validated.pipe.js';
import { AsBoolean, IsPageLimit, IsQueryDate } from './validation.js';

const QUERY_DATE = {
  type: String,
  format: 'date-time',
  description: 'ISO-8601: a date, or a date-time with Z or an offset (send + as %2B); years 1000 to 9999.',
};

// Ids are checked as strings here, and in full (length, NUL, surrogates, trailing space) by the store.
export class SessionParams {
  @ApiProperty({ type: String, description: 'The session id.' })
  @IsString()
  id!: string;
}

export class CreateSessionBody {
  @ApiPropertyOptional({ type: String, description: 'Generated (a UUID) when absent.' })
  @IsOptional()
  @IsString()
  id?: string;

  @ApiPropertyOptional({ type: String })
  @IsOptional()
  @IsString()
  title?: string;

  @ApiPropertyOptional({ type: String, description: 'Registers the new session as a subsession of this one.' })
  @IsOptional()
  @IsString()
  parentId?: string;

  @ApiPropertyOptional(JSON_OBJECT)
  @IsOptional()
  @IsObject()
  @AsSent()
  metadata?: JsonObject;
}

export class UpdateSessionBody {
  @ApiPropertyOptional({ type: String, nullable: true, description: 'null clears it.' })
  @IsOptional()
  @IsString()
  title?: string | null;

  @ApiPropertyOptional({ ...JSON_OBJECT, nullable: true, description: 'Replaces the metadata; null clears it.' })
  @IsOptional()
  @IsObject()
  @AsSent()
  metadata?: JsonObject | null;
}

export class ListSessionsQuery {
  @ApiPropertyOptional({ type: String, description: 'Only the subsessions of this session.' })
  @IsOptional()
  @IsString()
  parentId?: string;

  @ApiPropertyOptional({ type: String, description: 'Only the forks of this session.' })
  @IsOptional()
  @IsString()
  forkedFrom?: string;

  @ApiPropertyOptional({ type: String, maxLength: 200, description: 'Only sessions whose id or title contains this text (ASCII letters in either case).' })
  @IsOptional()
  @IsString()
  search?: string;

  @ApiPropertyOptional(QUERY_DATE)
  @IsOptional()
  @IsQueryDate()
  createdAfter?: Date;

  @ApiPropertyOptional(QUERY_DATE)
  @IsOptional()
  @IsQueryDate()
  createdBefore?: Date;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_SESSION_PAGE, default: 50, description: 'Plain decimal digits.' })
  @IsOptional()
  @IsPageLimit(MAX_SESSION_PAGE)
  limit?: number;

  @ApiPropertyOptional({ type: String, description: 'The nextCursor of the previous page.' })
  @IsOptional()
  @IsString()
  cursor?: string;
}

export class DeleteSessionQuery {
  @ApiPropertyOptional({ type: Boolean, default: false, description: 'true: delete the whole subtree of subsessions too.' })
  @IsOptional()
  @AsBoolean()
  @IsBoolean()
  cascade?: boolean;
}

export class ImportQuery {
  @ApiPropertyOptional({ type: String, description: "The session to import into (new, or existing and empty); default: the header's id." })
  @IsOptional()
  @IsString()
  sessionId?: string;

  @ApiPropertyOptional({
    enum: ['attach', 'omit'],
    description: "'omit': import the session without its subsession lines (to copy a session whose subsessions belong to the original). Default: attach.",
  })
  @IsOptional()
  @IsIn(['attach', 'omit'])
  subsessions?: 'attach' | 'omit';
}

/** Where a fork ends: exactly one of seq and position. */
export class ForkPointBody {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    description: "Up to and including the source's message at this seq (a message of its effective history).",
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  seq?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, description: "The first `position` messages of the source's effective history." })
  @IsOptional()
  @IsInt()
  @Min(0)
  position?: number;
}

export class ForkBody {
  @ApiPropertyOptional({ type: String, description: "The fork's id; generated (a UUID) when absent." })
  @IsOptional()
  @IsString()
  id?: string;

  @ApiPropertyOptional({ type: String, description: "Default: the source's." })
  @IsOptional()
  @IsString()
  title?: string;

  @ApiPropertyOptional({ ...JSON_OBJECT, description: "Default: the source's." })
  @IsOptional()
  @IsObject()
  @AsSent()
  metadata?: JsonObject;

  @ApiPropertyOptional({ type: ForkPointBody, description: "Where the fork's history ends; default: the source's whole effective history." })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ForkPointBody)
  at?: ForkPointBody;

  @ApiPropertyOptional({
    type: MessageBody,
    description: "Edit and regenerate: the fork's history ends with this user message in place of the source's last user message. Not with `at`.",
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => MessageBody)
  replaceLastUserMessage?: MessageBody;

  @ApiPropertyOptional({
    enum: ['refuse', 'repair'],
    default: 'refuse',
    description: "A fork point that leaves tool calls without results: 'refuse' (400) or 'repair' (each is answered with an error result).",
  })
  @IsOptional()
  @IsIn(['refuse', 'repair'])
  unansweredToolCalls?: 'refuse' | 'repair';
}
