// What every body, param and query of the store's routes goes through before a store sees it.
import { ValidationPipe, type Type } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { ValidateBy, buildMessage } from 'class-validator';

/**
 * A whitelisting ValidationPipe for one DTO, given per parameter: scripts run
 * through tsx (esbuild), which emits no design:paramtypes to find the DTO by.
 * The stores validate again, in full, what passes (JSON depth, NUL, dates).
 */
export const validated = (expectedType: Type) => new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true, expectedType });

/** Free-form JSON (content, metadata, event data) goes to the store as it was sent, not as class-transformer rebuilt it. */
export const AsSent = () => Transform(({ obj, key }) => (obj as Record<string, unknown>)[key], { toClassOnly: true });

/** A query flag: exactly "true" or "false". */
export const AsBoolean = () => Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value), { toClassOnly: true });

const isPart = (part: unknown) => typeof part === 'object' && part !== null && !Array.isArray(part) && typeof (part as { type?: unknown }).type === 'string';

/** Message content: a string, or an array of parts that are objects with a string `type`. */
export const IsMessageContent = () =>
  ValidateBy({
    name: 'isMessageContent',
    validator: {
      validate: (value: unknown) => typeof value === 'string' || (Array.isArray(value) && value.every(isPart)),
      defaultMessage: buildMessage(() => '$property must be a string or an array of parts, each an object with a string "type"'),
    },
  });
