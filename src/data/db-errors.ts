// Database failures are understood here, once: which are worth a retry, and
// which StoreError each becomes. Unknown errors keep their cause.
import {
  StoreBusyError,
  StoreConflictError,
  StoreDatabaseError,
  StoreError,
  StoreNotFoundError,
  StoreUnavailableError,
  StoreValidationError,
} from '../store.errors.js';
import { MAX_INTEGER } from '../validation.js';

/** What a driver adapter reports about a failure (`DriverAdapterError.cause`). */
interface AdapterFailure {
  kind: string;
  code?: string | number;
  originalCode?: string;
  extendedCode?: number;
}

const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const PG_TRANSIENT = new Set(['40001', '40P01', '55P03']);
const MYSQL_TRANSIENT = new Set([1205, 1213]);

export function adapterFailureOf(error: unknown): AdapterFailure | undefined {
  const candidate = error as { name?: string; cause?: unknown; meta?: { driverAdapterError?: { cause?: unknown } } };
  const cause = candidate?.meta?.driverAdapterError?.cause ?? (candidate?.name === 'DriverAdapterError' ? candidate.cause : undefined);
  if (typeof (cause as AdapterFailure | undefined)?.kind === 'string') return cause as AdapterFailure;
  return mariadbFailureOf(error);
}

// The kinds the store tells apart, given as @prisma/adapter-mariadb's
// mapDriverError gives them; any other error number is kind "mysql" here.
const MYSQL_KINDS: Record<number, string> = {
  1040: 'TooManyConnections',
  1044: 'DatabaseAccessDenied',
  1045: 'AuthenticationFailed',
  1049: 'DatabaseDoesNotExist',
  1062: 'UniqueConstraintViolation',
  1203: 'TooManyConnections',
  1213: 'TransactionWriteConflict',
  1264: 'ValueOutOfRange',
};

/** A connector error from the MariaDB paths that bypass the adapter, read as the adapter would report it. */
function mariadbFailureOf(error: unknown): AdapterFailure | undefined {
  const { name, errno } = (error ?? {}) as { name?: unknown; errno?: unknown };
  if (name !== 'SqlError' || typeof errno !== 'number') return undefined;
  return { kind: MYSQL_KINDS[errno] ?? 'mysql', code: errno, originalCode: String(errno) };
}

const prismaCodeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && /^P\d{4}$/.test(code) ? code : undefined;
};

/** A conflict that the same transaction, run again, may not meet: serialization failures, deadlocks, lock timeouts, SQLite busy. */
export function isTransient(error: unknown): boolean {
  if (error instanceof StoreError) return false;
  if (prismaCodeOf(error) === 'P2034') return true;
  const failure = adapterFailureOf(error);
  if (!failure) return false;
  if (failure.kind === 'TransactionWriteConflict') return true;
  if (failure.originalCode?.startsWith('SQLITE_BUSY') || failure.originalCode?.startsWith('SQLITE_LOCKED')) return true;
  if (failure.kind === 'sqlite') return [SQLITE_BUSY, SQLITE_LOCKED].includes((failure.extendedCode ?? 0) & 0xff);
  if (failure.kind === 'postgres') return PG_TRANSIENT.has(String(failure.code));
  if (failure.kind === 'mysql') return MYSQL_TRANSIENT.has(Number(failure.code));
  return false;
}

// Including a database that was dropped, or whose credentials stopped working: the store cannot reach its data.
const UNAVAILABLE_KINDS = new Set([
  'DatabaseNotReachable',
  'DatabaseDoesNotExist',
  'DatabaseAccessDenied',
  'AuthenticationFailed',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'TlsConnectionError',
]);
// P1000 authentication failed, P1001 unreachable, P1002 timed out, P1003 no such database, P1008 operation timed out,
// P1010 access denied, P1017 connection closed, P2024 pool timeout.
const UNAVAILABLE_CODES = new Set(['P1000', 'P1001', 'P1002', 'P1003', 'P1008', 'P1010', 'P1017', 'P2024']);
// P2028 is any transaction API error; only this one means no connection or lock came free in time.
const NO_TRANSACTION_IN_TIME = /Unable to start a transaction in the given time/;
// The connection went away or never came: pg-pool's timeout (a plain Error), a broken pg client.
// PostgreSQL's 55000 is no connection code, so its text is what tells a database that refuses connections.
const CONNECTION_LOST = /timeout exceeded when trying to connect|Connection terminated|is not queryable|is not currently accepting connections|ECONNRESET|EPIPE|ECONNREFUSED/;
// PostgreSQL: admin shutdown, crash shutdown, cannot connect now, and the connection exception class 08.
const PG_UNAVAILABLE = /^(57P0[123]|08...)$/;
// MariaDB connector: connection closed (45001, 45009, 45013), connection, socket or pool timeout (45012, 45026, 45028),
// session setup failed (45029), pool closed or closing (45027, 45037). Server: shutting down (1053), connection killed
// (1927), disconnected for inactivity (4031).
const MYSQL_UNAVAILABLE = new Set([45001, 45009, 45012, 45013, 45026, 45027, 45028, 45029, 45037, 1053, 1927, 4031]);

/** Turns any failure into a StoreError, keeping the original as `cause`. */
export function toStoreError(error: unknown, retriesExhausted = false): StoreError {
  if (error instanceof StoreError) return error;
  const message = (error as Error)?.message ?? String(error);
  if (retriesExhausted || isTransient(error)) {
    return new StoreBusyError(`the database stayed busy with conflicting writes: ${message}`, { cause: error });
  }
  const code = prismaCodeOf(error);
  const failure = adapterFailureOf(error);
  if (code === 'P2002' || failure?.kind === 'UniqueConstraintViolation') {
    return new StoreConflictError(`a row with the same key already exists: ${message}`, { cause: error });
  }
  if (code === 'P2025') return new StoreNotFoundError(message, { cause: error });
  if (isOutOfRange(failure)) {
    return new StoreValidationError(`a sequence number or count would pass ${MAX_INTEGER}, the most the database stores: ${message}`, { cause: error });
  }
  if (isUnavailable(code, failure, message)) {
    return new StoreUnavailableError(`the database is unavailable: ${message}`, { cause: error });
  }
  return new StoreDatabaseError(`the database failed: ${message}`, { cause: error });
}

// PostgreSQL's 22003 and MySQL's 1264, as the adapters report them.
const isOutOfRange = (failure: AdapterFailure | undefined) => failure?.kind === 'ValueOutOfRange';

function isUnavailable(code: string | undefined, failure: AdapterFailure | undefined, message: string): boolean {
  if (code && UNAVAILABLE_CODES.has(code)) return true;
  if (code === 'P2028') return NO_TRANSACTION_IN_TIME.test(message);
  if (CONNECTION_LOST.test(message)) return true;
  if (!failure) return false;
  if (failure.kind === 'postgres') return PG_UNAVAILABLE.test(String(failure.code));
  if (failure.kind === 'mysql') return MYSQL_UNAVAILABLE.has(Number(failure.code));
  return UNAVAILABLE_KINDS.has(failure.kind) && !failure.originalCode?.startsWith('SQLITE');
}
