// The module's options, and their validation at start-up.
import { StoreConfigurationError } from './store.errors.js';
import { KITS, kitOfUrl, type ProviderKit } from './databases/index.js';
import { redactUrl } from './values/redact.js';
import type { ResolvedStoreOptions, SqliteVacuum, TransactionHostLike } from './engine/resolved-options.js';

export type { ResolvedStoreOptions, SqliteVacuum, TransactionHostLike } from './engine/resolved-options.js';

/** StoreModule's options: where the store lives and how it reaches it. Every option is optional. */
export interface StoreModuleOptions {
  /**
   * Where the store lives: `file:<path>` (SQLite), `postgresql://…` or `mysql://…`
   * (MySQL and MariaDB). Default: the SQLite file `./data/agent-store.db`.
   */
  url?: string;
  /**
   * The same database through other servers, tried in this order when `url`'s
   * cannot be reached: a MariaDB Galera cluster's other nodes
   * (`mysql://app:secret@node2:3306/agents`, …), or a PostgreSQL primary's
   * standbys, one of which your tooling may promote (a server in recovery is
   * passed over: the store writes on the one that takes writes).
   * MySQL/MariaDB and PostgreSQL urls only.
   */
  failover?: string[];
  /**
   * Hot standbys of the PostgreSQL database at `url` (`postgresql://app:secret@replica1:5432/agents`, …):
   * session lists, JSONL exports and transcript pages are read from one that has replayed every write
   * this store made (and is at most `maxReplicaLagMs` behind), else from `url`. PostgreSQL urls only.
   */
  replicas?: string[];
  /** How far behind the primary, in time, a replica may be and still take reads. Default 5 000 ms. */
  maxReplicaLagMs?: number;
  /**
   * Your own PrismaClient instead of a url: built with its driver adapter, from
   * a schema that includes prisma/models.prisma. The module never disconnects it,
   * and never migrates it (your schema's migrations are yours to run).
   */
  prisma?: object;
  /**
   * nestjs-cls's `TransactionHost` (from `@nestjs-cls/transactional` with its
   * Prisma adapter) on the same client as `prisma`: a store call made while it
   * has a transaction open runs in that transaction. Needs `prisma`.
   */
  transactionHost?: TransactionHostLike;
  /** Apply pending migrations at start-up. Default: true for the embedded SQLite default, false otherwise. */
  migrate?: boolean;
  /** PostgreSQL and MySQL connection pool. */
  pool?: {
    /** Most connections open at once. Default 10. */
    max?: number;
    /** How long a call waits for a free connection before it fails. Default 10 000 ms. */
    connectionTimeoutMs?: number;
  };
  /** SQLite: how long a write waits for another process's lock. Default 10 000 ms. */
  sqliteBusyTimeoutMs?: number;
  /**
   * SQLite: which erasing calls end by rebuilding the file (VACUUM), the one way to remove every
   * earlier copy of what they deleted (docs/guide/conversation-life.md, "Erased from the files").
   * `'every-erasing-call'` (the default): `pruneTranscript` and `deleteTranscript` too, so no byte
   * of what any erasing call deleted is left when it returns. `'bulk-jobs'`: only `eraseTenant`,
   * `purge` and `pruneTranscripts`, for a file large enough that a rewrite per deleted session
   * costs too much (about 8 ms a MB, while writes wait for its lock).
   */
  sqliteVacuum?: SqliteVacuum;
}

const SQLITE_VACUUM: readonly SqliteVacuum[] = ['every-erasing-call', 'bulk-jobs'];

export const DEFAULT_URL = 'file:./data/agent-store.db';

const KNOWN_OPTIONS = new Set([
  'url',
  'failover',
  'replicas',
  'maxReplicaLagMs',
  'prisma',
  'transactionHost',
  'migrate',
  'pool',
  'sqliteBusyTimeoutMs',
  'sqliteVacuum',
]);
// The module definition's extras: forRoot strips them, so they arrive here only from a forRootAsync factory.
const STATIC_OPTIONS = new Set(['isGlobal', 'http']);

export function resolveOptions(options: StoreModuleOptions = {}): ResolvedStoreOptions {
  if (typeof options !== 'object' || options === null) throw new StoreConfigurationError('StoreModule options must be an object');
  for (const key of Object.keys(options)) {
    if (STATIC_OPTIONS.has(key)) {
      throw new StoreConfigurationError(`StoreModule option "${key}" shapes the module: pass it to forRootAsync beside useFactory, not from the factory`);
    }
    if (!KNOWN_OPTIONS.has(key)) {
      throw new StoreConfigurationError(`unknown StoreModule option "${key}"; known options: ${[...KNOWN_OPTIONS].join(', ')}`);
    }
  }
  if (options.migrate !== undefined && typeof options.migrate !== 'boolean') {
    throw new StoreConfigurationError('StoreModule option "migrate" must be true or false');
  }
  const sqliteVacuum = sqliteVacuumOf(options.sqliteVacuum);
  if (options.prisma !== undefined) return resolveClient(options, sqliteVacuum);
  if (options.transactionHost !== undefined) {
    throw new StoreConfigurationError(
      'StoreModule option "transactionHost" needs "prisma": the store joins transactions of your own PrismaClient, the one your TransactionHost\'s adapter uses',
    );
  }

  const url = options.url ?? DEFAULT_URL;
  const kit = kitOf(url);
  assertKnownKeys(options.pool ?? {}, 'pool', ['max', 'connectionTimeoutMs']);
  if (options.maxReplicaLagMs !== undefined && !options.replicas?.length) {
    throw new StoreConfigurationError('StoreModule option "maxReplicaLagMs" bounds the lag of "replicas", and none are given');
  }
  return {
    source: 'url',
    url,
    failover: failoverOf(options.failover, kit),
    replicas: replicasOf(options.replicas, kit, url),
    maxReplicaLagMs: positiveInteger(options.maxReplicaLagMs ?? 5_000, 'maxReplicaLagMs'),
    kit,
    migrate: options.migrate ?? options.url === undefined,
    pool: {
      max: positiveInteger(options.pool?.max ?? 10, 'pool.max'),
      connectionTimeoutMs: positiveInteger(options.pool?.connectionTimeoutMs ?? 10_000, 'pool.connectionTimeoutMs'),
    },
    sqliteBusyTimeoutMs: positiveInteger(options.sqliteBusyTimeoutMs ?? 10_000, 'sqliteBusyTimeoutMs'),
    sqliteVacuum,
  };
}

function sqliteVacuumOf(value: unknown): SqliteVacuum {
  if (value === undefined) return 'every-erasing-call';
  if (!SQLITE_VACUUM.includes(value as SqliteVacuum)) {
    throw new StoreConfigurationError(
      `StoreModule option "sqliteVacuum" must be ${listed(SQLITE_VACUUM.map((each) => `'${each}'`))}, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
    );
  }
  return value as SqliteVacuum;
}

/** The failover urls: other servers of `kit`'s database, where its kit can take them. */
function failoverOf(failover: unknown, kit: ProviderKit): string[] {
  if (failover === undefined) return [];
  if (!Array.isArray(failover)) throw new StoreConfigurationError('StoreModule option "failover" must be an array of urls');
  if (failover.length > 0 && !kit.failover) {
    throw new StoreConfigurationError(
      `StoreModule option "failover" takes MySQL/MariaDB urls (a Galera cluster's nodes) or PostgreSQL urls (a primary and its standbys); ${kit.label} urls have none`,
    );
  }
  for (const url of failover) {
    if (kitOf(url) !== kit) throw new StoreConfigurationError(`every "failover" url must be of the same database as "url" (${kit.urlStart}…)`);
  }
  return [...failover];
}

/** The replicas' urls: hot standbys of `kit`'s database at `primary`, where its kit reads from them. */
function replicasOf(replicas: unknown, kit: ProviderKit, primary: string): string[] {
  if (replicas === undefined) return [];
  if (!Array.isArray(replicas)) throw new StoreConfigurationError('StoreModule option "replicas" must be an array of urls');
  if (replicas.length > 0 && !kit.replicas) {
    throw new StoreConfigurationError(`StoreModule option "replicas" takes PostgreSQL urls (hot standbys); ${kit.label} urls have none`);
  }
  for (const url of replicas) {
    if (kitOf(url) !== kit) throw new StoreConfigurationError(`every "replicas" url must be of the same database as "url" (${kit.urlStart}…)`);
    // Either would take reads as a replica: the primary answers that it is none (at each read after its rest), a url twice has two pools.
    if (url === primary)
      throw new StoreConfigurationError(`StoreModule option "replicas" lists "url" itself (${redactUrl(url)}): give the primary's hot standbys`);
  }
  const twice = replicas.find((url, i) => replicas.indexOf(url) !== i);
  if (twice !== undefined) throw new StoreConfigurationError(`StoreModule option "replicas" lists ${redactUrl(twice)} twice`);
  return [...replicas];
}

function resolveClient(options: StoreModuleOptions, sqliteVacuum: SqliteVacuum): ResolvedStoreOptions {
  const client = options.prisma as Record<string, unknown> & { _activeProvider?: unknown };
  if (options.url !== undefined) throw new StoreConfigurationError('pass either "url" or "prisma" to StoreModule, not both');
  if (options.failover !== undefined)
    throw new StoreConfigurationError(
      'StoreModule option "failover" is for the store\'s own pools: on your own PrismaClient, give its adapter a pool that fails over',
    );
  for (const option of ['replicas', 'maxReplicaLagMs'] as const) {
    if (options[option] !== undefined)
      throw new StoreConfigurationError(`StoreModule option "${option}" is for the store's own pools: it needs "url", not "prisma"`);
  }
  if (options.migrate) {
    throw new StoreConfigurationError(
      'StoreModule cannot migrate your own PrismaClient: include prisma/models.prisma in your schema and run `prisma migrate deploy` with your migrations',
    );
  }
  if (typeof client !== 'object' || client === null || typeof client.$transaction !== 'function' || !client.agentThread || !client.agentMessage) {
    throw new StoreConfigurationError(
      'StoreModule option "prisma" must be a PrismaClient whose schema includes the models of prisma/models.prisma (agentThread, agentMessage, …)',
    );
  }
  const kit = Object.values(KITS).find((candidate) => candidate.provider === client._activeProvider);
  if (!kit)
    throw new StoreConfigurationError(
      `StoreModule supports ${listed(Object.values(KITS).map((each) => each.label))} clients, not "${String(client._activeProvider)}"`,
    );
  const host = options.transactionHost as Partial<TransactionHostLike> | undefined;
  if (host !== undefined && (typeof host !== 'object' || host === null || typeof host.isTransactionActive !== 'function' || !('tx' in host))) {
    throw new StoreConfigurationError(
      'StoreModule option "transactionHost" must be the TransactionHost of @nestjs-cls/transactional (inject it in forRootAsync: inject: [PrismaService, TransactionHost])',
    );
  }
  return { source: 'client', client, kit, transactionHost: options.transactionHost, sqliteVacuum };
}

function kitOf(url: unknown): ProviderKit {
  if (typeof url !== 'string' || url.length === 0) {
    throw new StoreConfigurationError(
      'StoreModule option "url" must be a connection string such as file:./data/agent-store.db or postgresql://user:pass@host:5432/db',
    );
  }
  const kit = kitOfUrl(url);
  if (!kit) {
    throw new StoreConfigurationError(
      `StoreModule cannot open "${redactUrl(url)}": the url must start with ${listed(Object.values(KITS).map((each) => `${each.urlStart} (${each.label})`))}`,
    );
  }
  kit.checkUrl(url);
  return kit;
}

function assertKnownKeys(value: object, name: string, known: string[]): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new StoreConfigurationError(`StoreModule option "${name}" must be an object`);
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw new StoreConfigurationError(`unknown StoreModule option "${name}.${key}"; known: ${known.join(', ')}`);
  }
}

function positiveInteger(value: unknown, name: string): number {
  if (!Number.isSafeInteger(value) || (value as number) <= 0) {
    throw new StoreConfigurationError(`StoreModule option "${name}" must be a positive integer, got ${String(value)}`);
  }
  return value as number;
}

/** "a, b or c" */
const listed = (items: string[]) => (items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items.at(-1)}` : items.join(''));
