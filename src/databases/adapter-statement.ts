// Statements straight on a driver adapter, typed as the adapters expect.
import type { ArgType, SqlQuery } from '@prisma/driver-adapter-utils';

export type Arg = string | number | Date | null;

/** A result row, its columns in the statement's order. */
export type Row = unknown[];

const argType = (arg: Arg): ArgType => ({ scalarType: arg instanceof Date ? 'datetime' : typeof arg === 'number' ? 'int' : 'string', arity: 'scalar' });

/** A statement for the adapter: each argument typed from its value. */
export const sql = (text: string, args: Arg[]): SqlQuery => ({ sql: text, args, argTypes: args.map(argType) });
