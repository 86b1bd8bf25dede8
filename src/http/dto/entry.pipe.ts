// A session entry is a message (it has a role) or an event: each shape is validated against its own whitelist.
import type { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { EventBody, MessageBody } from './message.dto.js';
import { validated } from './validated.pipe.js';

export class EntryValidationPipe implements PipeTransform<unknown, Promise<MessageBody | EventBody>> {
  private readonly message = validated(MessageBody);
  private readonly event = validated(EventBody);

  transform(value: unknown, metadata: ArgumentMetadata): Promise<MessageBody | EventBody> {
    const isMessage = typeof value === 'object' && value !== null && 'role' in value;
    return (isMessage ? this.message : this.event).transform(value, metadata);
  }
}
