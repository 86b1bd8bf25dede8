// Database failures become StoreErrors here, once. What a driver's own codes
// mean is its kit's to say (ProviderKit.classify); this file knows what every
// database shares: Prisma's error codes and the adapters' failure kinds.
// Unknown errors become StoreDatabaseError, keeping their cause.
import type { FailureKind, ProviderKit } from './provider-kit.js';
import { redactText } from '../values/redact.js';
import {
  StoreBusyError,
  StoreConflictError,
  StoreDatabaseError,
  StoreError,
  StoreNotFoundError,
  StoreUnavailableError,
  StoreValidationError,
} from '../store.errors.js';
import { MAX_INTEGER } from '../values/validation.js';

/** What a driver adapter reports about a failure (`DriverAdapterError.cause`). */
export interface AdapterFailure {
  kind: string;
  code?: string | number;
  originalCode?: string;
  /** The database's own words, which the adapter's message (often only `kind`) leaves out. */
  originalMessage?: string;
  extendedCode?: number;
}

/** The adapter's failure inside a Prisma error or a DriverAdapterError, if the error carries one. */
export function adapterFailureOf(error: unknown): AdapterFailure | undefined {
  const candidate = error as { name?: string; cause?: unknown; meta?: { driverAdapterError?: { cause?: unknown } } };
  const cause = candidate?.meta?.driverAdapterError?.cause ?? (candidate?.name === 'DriverAdapterError' ? candidate.cause : undefined);
  return typeof (cause as AdapterFailure | undefined)?.kind === 'string' ? (cause as AdapterFailure) : undefined;
}

const prismaCodeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && /^P\d{4}$/.test(code) ? code : undefined;
};

// The adapters' own kinds, the same on every database.
const KINDS: Record<string, FailureKind> = {
  TransactionWriteConflict: 'transient',
  UniqueConstraintViolation: 'conflict',
  ValueOutOfRange: 'validation',
  // Including a database that was dropped, or whose credentials stopped working: the store cannot reach its data.
  DatabaseNotReachable: 'unavailable',
  DatabaseDoesNotExist: 'unavailable',
  DatabaseAccessDenied: 'unavailable',
  AuthenticationFailed: 'unavailable',
  ConnectionClosed: 'unavailable',
  SocketTimeout: 'unavailable',
  TooManyConnections: 'unavailable',
  TlsConnectionError: 'unavailable',
};
// P1000 authentication failed, P1001 unreachable, P1002 timed out, P1003 no such database, P1008 operation timed out,
// P1010 access denied, P1017 connection closed, P2024 pool timeout; P2034 write conflict or deadlock; P2002 unique key.
const PRISMA_CODES: Record<string, FailureKind> = {
  P1000: 'unavailable',
  P1001: 'unavailable',
  P1002: 'unavailable',
  P1003: 'unavailable',
  P1008: 'unavailable',
  P1010: 'unavailable',
  P1017: 'unavailable',
  P2024: 'unavailable',
  P2034: 'transient',
  P2002: 'conflict',
};
// P2028 is any transaction API error; only this one means no connection or lock came free in time.
const NO_TRANSACTION_IN_TIME = /Unable to start a transaction in the given time/;
// The socket went away or never came, whatever the driver.
const SOCKET_LOST = /ECONNRESET|EPIPE|ECONNREFUSED/;

/** What `error` means on `kit`'s database; undefined for a plain failure. StoreErrors mean nothing more. */
export function failureKind(error: unknown, kit: ProviderKit): FailureKind | undefined {
  if (error instanceof StoreError) return undefined;
  const own = kit.classify(error);
  if (own) return own;
  const code = prismaCodeOf(error);
  if (code && PRISMA_CODES[code]) return PRISMA_CODES[code];
  const message = String((error as Error)?.message ?? '');
  if (code === 'P2028' && NO_TRANSACTION_IN_TIME.test(message)) return 'unavailable';
  const failure = adapterFailureOf(error);
  if (failure && KINDS[failure.kind]) return KINDS[failure.kind];
  return SOCKET_LOST.test(message) ? 'unavailable' : undefined;
}

export const isTransient = (error: unknown, kit: ProviderKit): boolean => failureKind(error, kit) === 'transient';

/** Turns any failure into a StoreError, keeping the original as `cause`. */
export function toStoreError(error: unknown, kit: ProviderKit, retriesExhausted = false): StoreError {
  if (error instanceof StoreError) return error;
  const message = wordsOf(error);
  const kind = failureKind(error, kit);
  if (retriesExhausted || kind === 'transient') return new StoreBusyError(`the database stayed busy with conflicting writes: ${message}`, { cause: error });
  if (kind === 'conflict') return new StoreConflictError(`a row with the same key already exists: ${message}`, { cause: error });
  if (kind === 'validation') {
    return new StoreValidationError(`a sequence number or count would pass ${MAX_INTEGER}, the most the database stores: ${message}`, { cause: error });
  }
  if (kind === 'unavailable') return new StoreUnavailableError(`the database is unavailable: ${message}`, { cause: error });
  if (prismaCodeOf(error) === 'P2025') return new StoreNotFoundError(message, { cause: error });
  return new StoreDatabaseError(`the database failed: ${message}`, { cause: error });
}

/**
 * What a StoreError's message says of `error`: its message, with the database's
 * own words when the adapter kept them apart ("DatabaseDoesNotExist: database
 * "x" does not exist"), and no secret, since messages reach logs and callers.
 */
function wordsOf(error: unknown): string {
  const message = (error as Error)?.message ?? String(error);
  const own = adapterFailureOf(error)?.originalMessage;
  // The MariaDB adapter says "N/A" when the connector gave no text.
  return redactText(own && own !== 'N/A' && !message.includes(own) ? `${message}: ${own}` : message);
}
