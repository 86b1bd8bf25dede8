// Which database failures are transient, which StoreError each becomes, and how retries treat them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DriverAdapterError } from '@prisma/driver-adapter-utils';
import { SqlError } from 'mariadb';
import { Prisma, PrismaClient } from '../../src/generated/sqlite/client.js';
import { adapterFailureOf, isTransient as isTransientOn, toStoreError as toStoreErrorOn } from '../../src/engine/db-errors.js';
import { KITS, type ProviderKit } from '../../src/databases/index.js';
import { migrate } from '../../src/engine/open-database.js';
import { DEFAULT_RETRY, withRetries as withRetriesOn } from '../../src/engine/retry.js';
import type { RetryPolicy } from '../../src/engine/provider-kit.js';
import { SerializedSqliteAdapterFactory } from '../../src/databases/sqlite/sqlite-adapter-factory.js';
import { GALERA_RETRY } from '../../src/databases/mysql/galera.js';
import {
  StoreBusyError,
  StoreConflictError,
  StoreDatabaseError,
  StoreError,
  StoreNotFoundError,
  StoreUnavailableError,
  StoreValidationError,
} from '../../src/store.errors.js';

const CLIENT_VERSION = '7.10.0';

/**
 * The kits that read `error`: its own database's, by the failure it carries, or
 * all three for what every database shares. Each must read it alike.
 */
function kitsOf(error: unknown): ProviderKit[] {
  const failure = adapterFailureOf(error);
  // node-postgres says in words that a connection went away or never came.
  if (failure?.kind === 'postgres' || /trying to connect|not currently accepting connections/.test(String((error as Error)?.message))) return [KITS.postgresql];
  if (failure?.kind === 'mysql' || (error as { name?: unknown })?.name === 'SqlError') return [KITS.mysql];
  if (failure?.kind === 'sqlite' || failure?.originalCode?.startsWith('SQLITE') || String((error as { code?: unknown })?.code).startsWith('SQLITE'))
    return [KITS.sqlite];
  return Object.values(KITS);
}

function agreed<T>(error: unknown, read: (kit: ProviderKit) => T, same: (a: T, b: T) => boolean = Object.is): T {
  const [first, ...rest] = kitsOf(error).map(read);
  for (const other of rest) if (!same(first, other)) throw new Error('the kits read this error differently');
  return first;
}

const isTransient = (error: unknown) => agreed(error, (kit) => isTransientOn(error, kit));
const toStoreError = (error: unknown, retriesExhausted = false) =>
  agreed(
    error,
    (kit) => toStoreErrorOn(error, kit, retriesExhausted),
    (a, b) => a.constructor === b.constructor && a.message === b.message,
  );
const withRetries = <T>(work: () => Promise<T>, policy?: RetryPolicy) => withRetriesOn(work, KITS.sqlite, policy);

/** A Prisma client error, as the client throws it. */
const prismaError = (code: string, meta?: Record<string, unknown>, message = `prisma ${code}`) =>
  new Prisma.PrismaClientKnownRequestError(message, { code, clientVersion: CLIENT_VERSION, meta });

/** A Prisma client error that carries a driver adapter's failure, as Prisma 7 reports them. */
const viaPrisma = (cause: Record<string, unknown>, code = 'P2010') => prismaError(code, { driverAdapterError: { name: 'DriverAdapterError', cause } });

/** What a driver adapter throws before Prisma wraps it. */
const rawAdapterError = (cause: Record<string, unknown>) => new DriverAdapterError(cause as never);

/** The same failure as a plain object, as it looks after crossing a serialization boundary. */
const plainAdapterError = (cause: Record<string, unknown>) => ({ name: 'DriverAdapterError', message: String(cause.kind), cause });

const TRANSIENT_FAILURES: [string, Record<string, unknown>][] = [
  ['TransactionWriteConflict', { kind: 'TransactionWriteConflict' }],
  ['postgres serialization failure 40001', { kind: 'postgres', code: '40001', severity: 'ERROR', message: 'could not serialize access' }],
  ['postgres deadlock 40P01', { kind: 'postgres', code: '40P01', severity: 'ERROR', message: 'deadlock detected' }],
  ['postgres lock not available 55P03', { kind: 'postgres', code: '55P03', severity: 'ERROR', message: 'could not obtain lock' }],
  ['mysql deadlock 1213', { kind: 'mysql', code: 1213, message: 'Deadlock found when trying to get lock', state: '40001' }],
  ['mysql lock wait timeout 1205', { kind: 'mysql', code: 1205, message: 'Lock wait timeout exceeded', state: 'HY000' }],
  ['sqlite busy (extendedCode 5)', { kind: 'sqlite', extendedCode: 5, message: 'database is locked' }],
  ['sqlite busy snapshot (extendedCode 517)', { kind: 'sqlite', extendedCode: 517, message: 'database is locked' }],
  ['sqlite locked (extendedCode 6)', { kind: 'sqlite', extendedCode: 6, message: 'database table is locked' }],
  ['SQLITE_BUSY reported as SocketTimeout', { kind: 'SocketTimeout', originalCode: 'SQLITE_BUSY', originalMessage: 'database is locked' }],
  ['SQLITE_BUSY_SNAPSHOT reported as SocketTimeout', { kind: 'SocketTimeout', originalCode: 'SQLITE_BUSY_SNAPSHOT' }],
];

const PERMANENT_FAILURES: [string, Record<string, unknown>][] = [
  ['postgres unique violation 23505', { kind: 'postgres', code: '23505', severity: 'ERROR', message: 'duplicate key value' }],
  ['postgres syntax error 42601', { kind: 'postgres', code: '42601', severity: 'ERROR', message: 'syntax error' }],
  ['mysql duplicate entry 1062', { kind: 'mysql', code: 1062, message: 'Duplicate entry', state: '23000' }],
  ['sqlite generic error', { kind: 'sqlite', extendedCode: 1, message: 'no such function' }],
  ['sqlite constraint (extendedCode 19)', { kind: 'sqlite', extendedCode: 19, message: 'constraint failed' }],
  ['missing table', { kind: 'TableDoesNotExist', table: 'agent_thread' }],
  ['a socket timeout that is not SQLite', { kind: 'SocketTimeout' }],
];

describe('isTransient', () => {
  it('Prisma P2034 (write conflict or deadlock, retry the transaction) is transient', () => {
    expect(isTransient(prismaError('P2034'))).toBe(true);
    expect(isTransient({ code: 'P2034', message: 'Transaction failed due to a write conflict or a deadlock' })).toBe(true);
  });

  describe.each(TRANSIENT_FAILURES)('%s', (_name, cause) => {
    it('is transient inside a Prisma error (meta.driverAdapterError.cause)', () => {
      expect(isTransient(viaPrisma(cause))).toBe(true);
    });
    it('is transient as a DriverAdapterError', () => {
      expect(isTransient(rawAdapterError(cause))).toBe(true);
      expect(isTransient(plainAdapterError(cause))).toBe(true);
    });
    it('becomes StoreBusyError, keeping the cause', () => {
      const error = viaPrisma(cause);
      const storeError = toStoreError(error);
      expect(storeError).toBeInstanceOf(StoreBusyError);
      expect(storeError).toBeInstanceOf(StoreDatabaseError);
      expect(storeError.cause).toBe(error);
    });
  });

  it('a thrown DriverAdapterError with a postgres 40001 cause is transient', () => {
    const thrown = Object.assign(new Error('could not serialize access'), {
      name: 'DriverAdapterError',
      cause: { kind: 'postgres', code: '40001' },
    });
    expect(isTransient(thrown)).toBe(true);
    expect(toStoreError(thrown)).toBeInstanceOf(StoreBusyError);
  });

  it('a mysql code given as a string is still recognised', () => {
    expect(isTransient(viaPrisma({ kind: 'mysql', code: '1213' }))).toBe(true);
  });

  describe.each(PERMANENT_FAILURES)('%s', (_name, cause) => {
    it('is not transient', () => {
      expect(isTransient(viaPrisma(cause))).toBe(false);
      expect(isTransient(rawAdapterError(cause))).toBe(false);
    });
  });

  it('Prisma P2002 (unique constraint) is not transient', () => {
    expect(isTransient(prismaError('P2002', { target: ['id'] }))).toBe(false);
  });

  it('StoreErrors are never transient, whatever they carry', () => {
    expect(isTransient(new StoreValidationError('bad input'))).toBe(false);
    expect(isTransient(new StoreBusyError('busy', { cause: prismaError('P2034') }))).toBe(false);
    expect(isTransient(Object.assign(new StoreDatabaseError('x'), { code: 'P2034' }))).toBe(false);
  });

  it('unknown values are not transient', () => {
    for (const value of [new Error('boom'), 'P2034', 42, null, undefined, {}, { code: 'P2034x' }, { code: 2034 }]) {
      expect(isTransient(value)).toBe(false);
    }
  });

  it('only a cause with a string kind counts as an adapter failure', () => {
    expect(adapterFailureOf({ name: 'DriverAdapterError', cause: { code: '40001' } })).toBeUndefined();
    expect(adapterFailureOf({ name: 'Error', cause: { kind: 'postgres', code: '40001' } })).toBeUndefined();
    expect(isTransient({ name: 'Error', cause: { kind: 'postgres', code: '40001' } })).toBe(false);
    expect(adapterFailureOf(viaPrisma({ kind: 'mysql', code: 1213 }))).toEqual({ kind: 'mysql', code: 1213 });
  });
});

describe('toStoreError', () => {
  it('a StoreError passes through as the same instance', () => {
    const validation = new StoreValidationError('threadId must be a non-empty string');
    expect(toStoreError(validation)).toBe(validation);
    const notFound = new StoreNotFoundError('gone');
    expect(toStoreError(notFound)).toBe(notFound);
    // Even when told the retries ran out: it is not a database conflict.
    expect(toStoreError(validation, true)).toBe(validation);
  });

  it('P2002 becomes StoreConflictError, keeping the cause', () => {
    const error = prismaError('P2002', { target: ['thread_id', 'seq'] }, 'Unique constraint failed on the fields: (`thread_id`,`seq`)');
    const storeError = toStoreError(error);
    expect(storeError).toBeInstanceOf(StoreConflictError);
    expect(storeError.cause).toBe(error);
    expect(storeError.message).toContain('Unique constraint failed');
  });

  it('an adapter UniqueConstraintViolation becomes StoreConflictError', () => {
    expect(toStoreError(rawAdapterError({ kind: 'UniqueConstraintViolation', constraint: { fields: ['id'] } }))).toBeInstanceOf(StoreConflictError);
  });

  it('postgres 23505 is not transient and not unavailable', () => {
    const storeError = toStoreError(viaPrisma({ kind: 'postgres', code: '23505' }));
    expect(storeError).not.toBeInstanceOf(StoreBusyError);
    expect(storeError).not.toBeInstanceOf(StoreUnavailableError);
    expect(storeError).toBeInstanceOf(StoreDatabaseError);
  });

  it('P2025 becomes StoreNotFoundError', () => {
    expect(toStoreError(prismaError('P2025'))).toBeInstanceOf(StoreNotFoundError);
  });

  it('P2028 is unavailable only when no transaction could be started in time', () => {
    const late = prismaError('P2028', undefined, 'Transaction API error: Unable to start a transaction in the given time.');
    expect(toStoreError(late)).toBeInstanceOf(StoreUnavailableError);
    const expired = toStoreError(prismaError('P2028', undefined, 'Transaction API error: A commit cannot be executed on an expired transaction.'));
    expect(expired).not.toBeInstanceOf(StoreUnavailableError);
    expect(expired).toBeInstanceOf(StoreDatabaseError);
  });

  it.each(['P1000', 'P1001', 'P1002', 'P1003', 'P1008', 'P1010', 'P1017', 'P2024'])('%s becomes StoreUnavailableError', (code) => {
    const error = prismaError(code);
    const storeError = toStoreError(error);
    expect(storeError).toBeInstanceOf(StoreUnavailableError);
    expect(storeError).not.toBeInstanceOf(StoreBusyError);
    expect(storeError.cause).toBe(error);
  });

  it.each([
    ['PostgreSQL shutting the connection down (57P01)', viaPrisma({ kind: 'postgres', code: '57P01' })],
    ['PostgreSQL connection failure (08006)', viaPrisma({ kind: 'postgres', code: '08006' })],
    ["MariaDB's pool timeout (45028)", viaPrisma({ kind: 'mysql', code: 45028 }, 'P2039')],
    ['a MariaDB socket closed (45009)', viaPrisma({ kind: 'mysql', code: 45009 })],
    ["pg-pool's timeout, a plain Error", new Error('timeout exceeded when trying to connect')],
    ['a PostgreSQL database that refuses connections (55000)', new Error('database "x" is not currently accepting connections')],
  ])('%s becomes StoreUnavailableError', (_name, error) => {
    expect(toStoreError(error)).toBeInstanceOf(StoreUnavailableError);
  });

  // A statement the server or the connector refused whole: retrying it fails the same way, whatever the connection does.
  it.each([
    [
      'a PostgreSQL protocol violation (08P01): a bind of more than 65,535 parameters',
      viaPrisma({ kind: 'postgres', code: '08P01', message: 'bind message has 34467 parameter formats but 0 parameters' }),
    ],
    [
      'the same thrown by the adapter',
      rawAdapterError({ kind: 'postgres', code: '08P01', message: 'bind message supplies 2 parameters, but prepared statement "" requires 1' }),
    ],
    [
      'a MariaDB packet past max_allowed_packet (1153), though the server closes the connection',
      viaPrisma({ kind: 'mysql', code: 1153, message: "Got a packet bigger than 'max_allowed_packet' bytes" }),
    ],
  ])('%s is a plain database failure: not unavailable, not retried', async (_name, error) => {
    const storeError = toStoreError(error);
    expect(storeError.constructor).toBe(StoreDatabaseError);
    expect(storeError.cause).toBe(error);
    expect(isTransient(error)).toBe(false);
    let attempts = 0;
    await expect(
      withRetriesOn(async () => ++attempts && Promise.reject(error), kitsOf(error)[0], { attempts: 4, baseDelayMs: 1, maxDelayMs: 2 }),
    ).rejects.toThrow(StoreDatabaseError);
    expect(attempts).toBe(1);
  });

  // As Prisma's pg adapter reports them (the words in originalMessage); seen behind PgBouncer 1.18 in test/operations/pgbouncer.test.ts.
  it.each([
    'query_wait_timeout',
    'client_login_timeout (server down)',
    'server login has been failing, try again later (server_login_retry)',
    'pgbouncer cannot connect to server',
    'server conn crashed?',
    'no more connections allowed (max_client_conn)',
    'no such database: agents',
  ])('PgBouncer\'s "%s" (a protocol violation, 08P01, in its own words) becomes StoreUnavailableError', (words) => {
    const failure = { kind: 'postgres', code: '08P01', originalCode: '08P01', originalMessage: words, message: words };
    expect(toStoreError(viaPrisma(failure))).toBeInstanceOf(StoreUnavailableError);
    expect(toStoreError(rawAdapterError(failure))).toBeInstanceOf(StoreUnavailableError);
  });

  it.each([
    'DatabaseNotReachable',
    'DatabaseDoesNotExist',
    'DatabaseAccessDenied',
    'AuthenticationFailed',
    'ConnectionClosed',
    'SocketTimeout',
    'TooManyConnections',
    'TlsConnectionError',
  ])('adapter kind %s becomes StoreUnavailableError', (kind) => {
    expect(toStoreError(rawAdapterError({ kind }))).toBeInstanceOf(StoreUnavailableError);
  });

  it('a SQLite busy reported as SocketTimeout under P1008 is busy, not unavailable', () => {
    const error = viaPrisma({ kind: 'SocketTimeout', originalCode: 'SQLITE_BUSY', originalMessage: 'database is locked' }, 'P1008');
    expect(toStoreError(error)).toBeInstanceOf(StoreBusyError);
  });

  it('an unknown error becomes StoreDatabaseError with its cause and message kept', () => {
    const error = new TypeError('something odd');
    const storeError = toStoreError(error);
    expect(storeError.constructor).toBe(StoreDatabaseError);
    expect(storeError.cause).toBe(error);
    expect(storeError.message).toContain('something odd');
  });

  it("the message names the database's own words, which an adapter failure keeps apart from its kind", () => {
    const error = rawAdapterError({ kind: 'DatabaseDoesNotExist', originalCode: '3D000', originalMessage: 'database "agents" does not exist' });
    expect(toStoreError(error).message).toBe('the database is unavailable: DatabaseDoesNotExist: database "agents" does not exist');
  });

  it('the message carries no secret that the driver put in its text', () => {
    const error = new Error('could not connect to postgresql://app:s3cret@db/agents?sslpassword=s3cret2 (host=db password=s3cret3)');
    expect(toStoreError(error).message).toBe('the database failed: could not connect to postgresql://app:***@db/agents?sslpassword=*** (host=db password=***)');
  });

  it('non-Error values become StoreDatabaseError too', () => {
    for (const value of ['a string', 42, null, undefined, { weird: true }]) {
      const storeError = toStoreError(value);
      expect(storeError.constructor).toBe(StoreDatabaseError);
      expect(storeError.cause).toBe(value);
    }
  });

  it('retriesExhausted turns any database error into StoreBusyError', () => {
    const error = new Error('still conflicting');
    const storeError = toStoreError(error, true);
    expect(storeError).toBeInstanceOf(StoreBusyError);
    expect(storeError.cause).toBe(error);
  });

  it('every result is a StoreError', () => {
    for (const value of [prismaError('P2002'), prismaError('P9999'), rawAdapterError({ kind: 'postgres', code: '23505' }), new Error('x'), null]) {
      expect(toStoreError(value)).toBeInstanceOf(StoreError);
    }
  });
});

// The MariaDB append and read paths run on the connector's pool, not through the adapter: its errors arrive as they are.
describe("the MariaDB connector's own errors", () => {
  /** A server error as the connector raises it (message, sql, fatal, info, sqlState, errno). */
  const sqlError = (errno: number, sqlState: string, message: string) => new SqlError(message, 'UPDATE agent_thread …', false, undefined, sqlState, errno);

  it.each([
    ['a deadlock (1213)', 1213, '40001'],
    ['a lock wait timeout (1205)', 1205, 'HY000'],
  ])('%s is transient and, after the last retry, StoreBusyError', (_name, errno, state) => {
    const error = sqlError(errno, state, 'conflict');
    expect(isTransient(error)).toBe(true);
    expect(toStoreError(error, true)).toBeInstanceOf(StoreBusyError);
  });

  it.each([
    ['an out-of-range counter (1264)', 1264, '22003', StoreValidationError],
    ['a duplicate key (1062)', 1062, '23000', StoreConflictError],
    ['wrong credentials (1045)', 1045, '28000', StoreUnavailableError],
    ['access denied to a login without a password (1698)', 1698, '28000', StoreUnavailableError],
    ['a database the user may not use (1044)', 1044, '42000', StoreUnavailableError],
    ['a dropped database (1049)', 1049, '42000', StoreUnavailableError],
    ["the pool's timeout (45028)", 45028, 'HY000', StoreUnavailableError],
    ['a closed socket (45009)', 45009, '08S01', StoreUnavailableError],
    ['a command on a closed connection (45013)', 45013, '08S01', StoreUnavailableError],
    ['a closed pool (45027)', 45027, 'HY000', StoreUnavailableError],
    ['a server shutting down (1053)', 1053, '08S01', StoreUnavailableError],
    ['a killed connection (1927)', 1927, '70100', StoreUnavailableError],
    ['a missing table (1146)', 1146, '42S02', StoreDatabaseError],
    ['a packet past max_allowed_packet (1153), which closes the connection', 1153, '08S01', StoreDatabaseError],
    ["the connector's own max_allowed_packet check (45046)", 45046, 'HY000', StoreDatabaseError],
  ] as const)('%s becomes the StoreError the adapter would give, keeping the cause', (_name, errno, state, type) => {
    const error = sqlError(errno, state, 'failure');
    const storeError = toStoreError(error);
    expect(isTransient(error)).toBe(false);
    expect(storeError.constructor).toBe(type);
    expect(storeError.cause).toBe(error);
  });

  it('an error without an error number is not read as one of the server', () => {
    expect(KITS.mysql.classify(Object.assign(new Error('x'), { name: 'SqlError' }))).toBeUndefined();
    expect(KITS.mysql.classify(Object.assign(new Error('x'), { errno: 1213 }))).toBeUndefined();
  });
});

describe('withRetries', () => {
  const FAST: RetryPolicy = { attempts: 4, baseDelayMs: 1, maxDelayMs: 2 };

  /** A unit of work that fails with `failures` in turn, then returns `value`. */
  function flaky<T>(failures: unknown[], value: T) {
    const calls = { count: 0 };
    const work = async () => {
      const failure = failures[calls.count++];
      if (calls.count <= failures.length) throw failure;
      return value;
    };
    return { work, calls };
  }

  it('returns at once when the work succeeds', async () => {
    const { work, calls } = flaky([], 'ok');
    await expect(withRetries(work, FAST)).resolves.toBe('ok');
    expect(calls.count).toBe(1);
  });

  it.each([
    ['SQLite', KITS.sqlite, rawAdapterError({ kind: 'sqlite', extendedCode: 5 })],
    ['PostgreSQL', KITS.postgresql, viaPrisma({ kind: 'postgres', code: '40001' })],
    ['MariaDB', KITS.mysql, rawAdapterError({ kind: 'mysql', code: 1213 })],
  ])('retries transient failures until the work succeeds (%s)', async (_name, kit, own) => {
    const { work, calls } = flaky([prismaError('P2034'), rawAdapterError({ kind: 'TransactionWriteConflict' }), own], 'ok');
    await expect(withRetriesOn(work, kit, FAST)).resolves.toBe('ok');
    expect(calls.count).toBe(4);
  });

  it('gives up after policy.attempts with StoreBusyError, keeping the last failure', async () => {
    const failures = Array.from({ length: 10 }, (_, i) => viaPrisma({ kind: 'sqlite', extendedCode: 5, message: `busy ${i}` }));
    const { work, calls } = flaky(failures, 'never');
    const error = await withRetries(work, FAST).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreBusyError);
    expect((error as StoreBusyError).cause).toBe(failures[FAST.attempts - 1]);
    expect(calls.count).toBe(FAST.attempts);
  });

  it('with one attempt it does not retry at all', async () => {
    const { work, calls } = flaky([prismaError('P2034'), prismaError('P2034')], 'ok');
    await expect(withRetries(work, { ...FAST, attempts: 1 })).rejects.toBeInstanceOf(StoreBusyError);
    expect(calls.count).toBe(1);
  });

  it('uses DEFAULT_RETRY when given no policy', async () => {
    const failures = Array.from({ length: 20 }, () => prismaError('P2034'));
    const { work, calls } = flaky(failures, 'never');
    await expect(withRetries(work)).rejects.toBeInstanceOf(StoreBusyError);
    expect(calls.count).toBe(DEFAULT_RETRY.attempts);
  });

  it.each<[string, unknown, new (...args: never[]) => StoreError]>([
    ['P2002 unique violation', prismaError('P2002'), StoreConflictError],
    ['a validation StoreError', new StoreValidationError('bad input'), StoreValidationError],
    ['postgres 23505', viaPrisma({ kind: 'postgres', code: '23505' }), StoreDatabaseError],
    ['P1001 unreachable', prismaError('P1001'), StoreUnavailableError],
    ['an unknown error', new Error('boom'), StoreDatabaseError],
  ])('never retries %s', async (_name, failure, expected) => {
    const { work, calls } = flaky([failure, failure], 'ok');
    const error = await withRetries(work, FAST).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(expected);
    expect(error).not.toBeInstanceOf(StoreBusyError);
    expect(calls.count).toBe(1);
  });

  it('a StoreError thrown by the work comes out as the same instance', async () => {
    const validation = new StoreValidationError('bad input');
    const { work } = flaky([validation], 'ok');
    await expect(withRetries(work, FAST)).rejects.toBe(validation);
  });

  it("a Galera node's wider retries are for certification failures (deadlocks) only: a lock wait timeout gets the default's", async () => {
    const deadlock = Object.assign(new Error('Deadlock found when trying to get lock'), { name: 'SqlError', errno: 1213 });
    const lockWait = Object.assign(new Error('Lock wait timeout exceeded'), { name: 'SqlError', errno: 1205 });
    const policy = { ...GALERA_RETRY, baseDelayMs: 0, maxDelayMs: 0 };
    for (const [error, attempts] of [
      [deadlock, GALERA_RETRY.attempts],
      [lockWait, DEFAULT_RETRY.attempts],
    ] as const) {
      let tried = 0;
      await expect(withRetriesOn(async () => ++tried && Promise.reject(error), KITS.mysql, policy)).rejects.toThrow(StoreBusyError);
      expect(tried).toBe(attempts);
    }
  });

  it('stops retrying as soon as a transient failure is followed by a permanent one', async () => {
    const { work, calls } = flaky([prismaError('P2034'), prismaError('P2002')], 'ok');
    await expect(withRetries(work, FAST)).rejects.toBeInstanceOf(StoreConflictError);
    expect(calls.count).toBe(2);
  });
});

describe('errors the Prisma client really throws on SQLite', () => {
  let dir: string;
  let path: string;
  let client: PrismaClient;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-store-errors-'));
    path = join(dir, 'store.db');
    await migrate(new SerializedSqliteAdapterFactory(`file:${path}`), KITS.sqlite);
    client = new PrismaClient({ adapter: new SerializedSqliteAdapterFactory(`file:${path}`, { busyTimeoutMs: 0 }) });
  });
  afterAll(async () => {
    await client.$disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a write blocked by another connection is transient and becomes StoreBusyError', async () => {
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    try {
      const error = await client.agentTombstone.create({ data: { id: 'blocked' } }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Prisma.PrismaClientKnownRequestError);
      expect(isTransient(error)).toBe(true);
      expect(toStoreError(error)).toBeInstanceOf(StoreBusyError);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  });

  it('withRetries outlasts a lock that is released in time', async () => {
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    setTimeout(() => {
      other.exec('ROLLBACK');
      other.close();
    }, 30);
    let calls = 0;
    await withRetries(
      () => {
        calls++;
        return client.agentTombstone.create({ data: { id: 'eventually' } });
      },
      { attempts: 50, baseDelayMs: 5, maxDelayMs: 20 },
    );
    expect(calls).toBeGreaterThan(1);
    expect(await client.agentTombstone.findUnique({ where: { id: 'eventually' } })).not.toBeNull();
  });

  it('a duplicate key is not transient and becomes StoreConflictError', async () => {
    await client.agentTombstone.create({ data: { id: 'dup' } });
    const error = await client.agentTombstone.create({ data: { id: 'dup' } }).catch((caught: unknown) => caught);
    expect(isTransient(error)).toBe(false);
    expect(toStoreError(error)).toBeInstanceOf(StoreConflictError);
  });
});
