// A value as a log row holds it: its JSON text in `content`, and in `value_types`
// where its non-JSON values are (bytes, dates, URLs), for the adapters' entries.
import type { JsonValue } from '../message.types.js';
import { checkJsonText, checkValue, fromJsonForm, toJsonForm } from './stored-values.js';

export interface EncodedValue {
  content: string;
  valueTypes: string | null;
}

/** StoreValidationError naming the first value the store cannot keep. */
export function encodedValue(value: unknown, name: string): EncodedValue {
  const types = checkValue(value, name);
  return { content: JSON.stringify(toJsonForm(value, types) as JsonValue), valueTypes: types.length > 0 ? JSON.stringify(types) : null };
}

/** JSON kept as its text alone, which a JSON round trip gives back equal (see checkJsonText). */
export function jsonTextValue(value: unknown, name: string): EncodedValue {
  checkJsonText(value, name);
  return { content: JSON.stringify(value), valueTypes: null };
}

export const decodedRow = (row: EncodedValue): unknown =>
  fromJsonForm(JSON.parse(row.content), row.valueTypes === null ? undefined : JSON.parse(row.valueTypes));

/** `value` as the store keeps it and gives it back (its non-JSON values kept, what it cannot keep a StoreValidationError). */
export const storedValueOf = (value: unknown, name: string): unknown => decodedRow(encodedValue(value, name));
