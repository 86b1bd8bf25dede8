// Counts the statements a call sends to the database, BEGIN and COMMIT
// included, whoever sends them. Prisma's query events leave out the BEGIN and
// isolation statements of its transactions, so the count is taken lower down:
// every statement executed through better-sqlite3 or node-postgres in this
// process, and on MariaDB the server's general query log (its connector, of
// which Prisma's adapter has a copy of its own, offers no single place to listen).
import { createRequire } from 'node:module';
import Database from 'better-sqlite3';
import mariadb from 'mariadb';
import pg from 'pg';
import { mariadbConnection } from '../src/databases/mysql/index.js';
import type { Engine } from './targets/target.js';

export interface StatementCounter {
  /** Runs `work` alone (nothing else may use the database meanwhile) and counts what it sent. */
  count(work: () => Promise<unknown>): Promise<number>;
  close(): Promise<void>;
}

let counting = false;
let counted = 0;

function wrap<T extends object>(owner: T, method: string): void {
  const original = (owner as Record<string, (...args: unknown[]) => unknown>)[method];
  (owner as Record<string, unknown>)[method] = function (this: unknown, ...args: unknown[]) {
    if (counting) counted++;
    return original.apply(this, args);
  };
}

/** Statements of a driver the wrappers below do not reach (libsql's, in Mastra's target), told by its target; counted while a count() runs. */
export function countStatements(n: number): void {
  if (counting) counted += n;
}

/** node-postgres's Client, and the copy pg-promise (under Mastra's PostgreSQL storage) has of its own. */
function postgresClients(): (typeof pg.Client)[] {
  const require = createRequire(import.meta.url);
  try {
    return [pg.Client, (createRequire(require.resolve('pg-promise'))('pg') as typeof pg).Client].filter((client, i, all) => all.indexOf(client) === i);
  } catch {
    return [pg.Client];
  }
}

let installed: Engine[] = [];

/** Wraps the drivers' execute methods once per process; they only count while a count() runs. */
function install(engine: 'sqlite' | 'postgresql'): void {
  if (installed.includes(engine)) return;
  installed = [...installed, engine];
  if (engine === 'postgresql') {
    for (const client of postgresClients()) wrap(client.prototype, 'query');
    return;
  }
  const probe = new Database(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('SELECT 1')) as object;
  probe.close();
  for (const method of ['run', 'get', 'all', 'iterate']) wrap(statement, method);
  wrap(Database.prototype, 'exec');
}

async function inProcess(work: () => Promise<unknown>): Promise<number> {
  counted = 0;
  counting = true;
  try {
    await work();
    return counted;
  } finally {
    counting = false;
  }
}

/** A counter for `engine`; MariaDB's reads the server's general query log through `url`. */
export async function statementCounter(engine: Engine, url: string): Promise<StatementCounter> {
  if (engine !== 'mysql') {
    install(engine);
    return { count: inProcess, close: async () => {} };
  }
  // The server's status counters are summed up after a statement has answered, so they
  // lag; the general log records each statement before it runs. It is on only while counting.
  const connection = await mariadb.createConnection(mariadbConnection(url));
  await connection.query("SET GLOBAL log_output = 'TABLE'");
  return {
    async count(work) {
      await connection.query('TRUNCATE mysql.general_log');
      await connection.query('SET GLOBAL general_log = 1');
      try {
        await work();
      } finally {
        await connection.query('SET GLOBAL general_log = 0');
      }
      const [row] = (await connection.query(
        "SELECT COUNT(*) AS n FROM mysql.general_log WHERE thread_id <> CONNECTION_ID() AND command_type IN ('Query', 'Execute')",
      )) as { n: bigint }[];
      return Number(row.n);
    },
    close: () => connection.end(),
  };
}

let byPort: Map<number, number> | undefined;
let portsInstalled = false;

/**
 * Runs `work` alone and counts the statements it sent through node-postgres (Prisma's pg adapter's
 * included), by the port of the server each went to: which of several servers answered a call.
 */
export async function statementsByPort(work: () => Promise<unknown>): Promise<Map<number, number>> {
  if (!portsInstalled) {
    portsInstalled = true;
    const original = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      byPort?.set(this.port, (byPort.get(this.port) ?? 0) + 1);
      return (original as (...args: unknown[]) => unknown).apply(this, args);
    } as typeof original;
  }
  byPort = new Map();
  try {
    await work();
    return byPort;
  } finally {
    byPort = undefined;
  }
}
