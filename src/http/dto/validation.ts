// Checks and query-string conversions of the DTOs' properties that class-validator has no decorator for.
import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { ValidateBy, buildMessage } from 'class-validator';
import { dateOf, instantOf, MAX_INTEGER } from '../../values/validation.js';

/** A query flag: exactly "true" or "false". */
export const AsBoolean = () => Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value), { toClassOnly: true });

/**
 * An integer in a query string, in plain decimal digits of at most `digits`
 * (Number() would also take "1e2", "0x10" and " 5"), from 1 to `max`.
 */
function IsQueryInteger(name: string, digits: number, max: number) {
  const plain = new RegExp(`^\\d{1,${digits}}$`);
  return applyDecorators(
    Transform(({ value }) => (typeof value === 'string' && plain.test(value) ? Number(value) : value), { toClassOnly: true }),
    ValidateBy({
      name,
      validator: {
        validate: (value: unknown) => Number.isInteger(value) && (value as number) >= 1 && (value as number) <= max,
        defaultMessage: buildMessage(() => `$property must be an integer from 1 to ${max}, in plain decimal digits`),
      },
    }),
  );
}

/** A page size in a query string, from 1 to `max` (at most 9,999). */
export const IsPageLimit = (max: number) => IsQueryInteger('isPageLimit', 4, max);

/** A seq in a query string: from 1 to the largest a log holds (its column is a 32-bit INTEGER). */
export const IsQuerySeq = () => IsQueryInteger('isQuerySeq', 10, MAX_INTEGER);

// A date (midnight UTC), or a date-time with its zone as the store takes it (instantOf).
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

function queryDateOf(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const time = instantOf(DATE_ONLY.test(value) ? `${value}T00:00:00Z` : value);
  return Number.isNaN(time) ? value : new Date(time);
}

/** Whether the store takes the date: the range is its own (dateOf). */
function isStoreDate(value: unknown): boolean {
  try {
    return value instanceof Date && dateOf(value, 'date') === value;
  } catch {
    return false;
  }
}

/** A date in a query string: ISO-8601 only (not whatever Date parses), within the years the store holds. */
export const IsQueryDate = () =>
  applyDecorators(
    Transform(({ value }) => queryDateOf(value), { toClassOnly: true }),
    ValidateBy({
      name: 'isQueryDate',
      validator: {
        validate: isStoreDate,
        defaultMessage: buildMessage(
          () =>
            '$property must be a Date in ISO-8601, a date (2024-05-01) or a date-time with Z or an offset (2024-05-01T12:00:00Z), within the years 1000 to 9999',
        ),
      },
    }),
  );

/** A date-time in a body: an ISO-8601 instant with its zone, within the years the store holds (dateOf). */
export const IsInstant = () =>
  ValidateBy({
    name: 'isInstant',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && isStoreDate(new Date(instantOf(value))),
      defaultMessage: buildMessage(() => '$property must be an ISO-8601 date-time with Z or an offset (2024-05-01T12:00:00Z), within the years 1000 to 9999'),
    },
  });

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
