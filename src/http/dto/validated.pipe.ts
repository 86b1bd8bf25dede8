// The pipe every body, param and query of the store's routes goes through before a store sees it, and the decorators it reads.
import { BadRequestException, ValidationPipe, type ArgumentMetadata, type PipeTransform, type Type } from '@nestjs/common';
import { ArrayMaxSize } from 'class-validator';
import { protoKeyPath } from '../json-keys.js';

/**
 * How a handler types what `validated(Dto)` gives it: `@Body(validated(Dto)) body: Validated<Dto>`,
 * never the bare class. A mapped type is emitted as design:paramtypes `Object`, which a host's
 * global ValidationPipe skips; typed `Dto`, it would validate, convert and strip our values first.
 */
export type Validated<Dto> = Readonly<Dto>;

// The free-form JSON properties, by the prototype of the DTO class that declares them.
const sentAsIs = new WeakMap<object, Set<string | symbol>>();

/** Free-form JSON (content, metadata, event data): the handler gets it exactly as it was sent. */
export const AsSent = (): PropertyDecorator => (prototype, key) => {
  sentAsIs.set(prototype, new Set(sentAsIs.get(prototype)).add(key));
};

function isSentAsIs(dto: object, key: string): boolean {
  for (let prototype = Object.getPrototypeOf(dto); prototype !== null; prototype = Object.getPrototypeOf(prototype)) {
    if (sentAsIs.get(prototype)?.has(key)) return true;
  }
  return false;
}

// The bounded arrays, with their bounds, by the prototype of the DTO class that declares them.
const arrayBounds = new WeakMap<object, Map<string | symbol, number>>();

/**
 * @ArrayMaxSize(max), also checked on the body's own properties before
 * validation starts: class-transformer and class-validator take some 25 µs
 * an item, so a 1 MiB batch of 30,000 tiny messages was refused a second late.
 */
export const MaxItems =
  (max: number): PropertyDecorator =>
  (prototype, key) => {
    arrayBounds.set(prototype, new Map(arrayBounds.get(prototype)).set(key, max));
    ArrayMaxSize(max)(prototype, key as string);
  };

function refuseLongArrays(prototype: object, sent: unknown): void {
  if (typeof sent !== 'object' || sent === null) return;
  const errors: string[] = [];
  for (let declaring = prototype; declaring !== null; declaring = Object.getPrototypeOf(declaring)) {
    for (const [key, max] of arrayBounds.get(declaring) ?? []) {
      const value = (sent as Record<string | symbol, unknown>)[key];
      if (Array.isArray(value) && value.length > max) errors.push(`${String(key)} must contain no more than ${max} elements`);
    }
  }
  if (errors.length > 0) throw new BadRequestException(errors);
}

const PROTOTYPE_KEYS = new Set(['constructor', 'prototype', '__proto__']);

/**
 * A whitelisting ValidationPipe for one DTO, given per parameter: scripts run
 * through tsx (esbuild), which emits no design:paramtypes to find the DTO by.
 * It validates a copy, since ValidationPipe deletes every `constructor`,
 * `prototype` and `__proto__` key in place, and in free-form JSON such keys
 * are data. The stores validate again, in full, what passes (JSON depth, NUL, dates).
 */
class ValidatedPipe<Dto> implements PipeTransform<unknown, Promise<Dto>> {
  private readonly pipe: ValidationPipe;

  constructor(private readonly expectedType: Type<Dto>) {
    this.pipe = new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true, expectedType });
  }

  async transform(value: unknown, metadata: ArgumentMetadata): Promise<Dto> {
    refuseLongArrays(this.expectedType.prototype, value);
    const dto: Dto = await this.pipe.transform(structuredClone(value), metadata);
    takeSent(dto, value, []);
    return dto;
  }
}

export const validated = <Dto>(expectedType: Type<Dto>) => new ValidatedPipe(expectedType);

/**
 * Puts the free-form fields of the validated `dto` back as `sent` has them,
 * walking the DTOs and arrays of DTOs only (a body, its messages). A prototype
 * key anywhere else was deleted before the whitelist could see it: it is
 * refused as the whitelist refuses any other unknown property. In free-form
 * JSON, `constructor` and `prototype` are kept; `__proto__` is refused, since
 * the database would not keep it.
 */
function takeSent(dto: unknown, sent: unknown, path: string[]): void {
  if (typeof dto !== 'object' || dto === null || typeof sent !== 'object' || sent === null) return;
  if (Array.isArray(dto)) {
    dto.forEach((item, i) => takeSent(item, (sent as unknown[])[i], [...path, String(i)]));
    return;
  }
  const fields = dto as Record<string, unknown>;
  for (const [key, value] of Object.entries(sent)) {
    if (isSentAsIs(dto, key)) fields[key] = freeForm(value, [...path, key].join('.'));
    else if (PROTOTYPE_KEYS.has(key)) throw new BadRequestException([[...path, `property ${key} should not exist`].join('.')]);
    else takeSent(fields[key], value, [...path, key]);
  }
}

function freeForm(value: unknown, name: string): unknown {
  const unkept = protoKeyPath(value, name);
  if (unkept) throw new BadRequestException([`${unkept}: the store cannot keep a key named "__proto__" (its database client drops it); rename the key`]);
  return value;
}
