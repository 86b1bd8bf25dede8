// The migration runner on real SQLite files: what it applies, records, skips and refuses.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { migrationsDir, schemaPath } from '../../scripts/prisma-layout.js';
import { deployWithPrisma, withSchemaEngine } from '../../scripts/schema-engine.js';
import { checksumOf, shippedMigrations, splitStatements, type MigrationFile } from '../../src/engine/migration-files.js';
import { applyMigrations, FailedMigrationError } from '../../src/engine/migrator.js';
import { migrate } from '../../src/engine/open-database.js';
import { KITS } from '../../src/databases/index.js';
import { SerializedSqliteAdapterFactory } from '../../src/databases/sqlite/sqlite-adapter-factory.js';

const AGENT_TABLES = ['agent_boundary', 'agent_message', 'agent_repair', 'agent_subsession', 'agent_thread', 'agent_tombstone'];
const SQLITE_DIR = migrationsDir('sqlite');
const INIT = readdirSync(SQLITE_DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort()[0];
const INIT_SQL = readFileSync(join(SQLITE_DIR, INIT, 'migration.sql'), 'utf8');
/** Every shipped migration's name, in order. */
const SHIPPED = readdirSync(SQLITE_DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-store-migrations-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

let counter = 0;
const freshFile = () => join(dir, `db-${++counter}.sqlite`);
const urlOf = (path: string) => `file:${path}`;

/** Runs `work` on a connection of its own, outside the code under test. */
function inspect<T>(path: string, work: (db: Database.Database) => T): T {
  const db = new Database(path, { fileMustExist: true });
  try {
    return work(db);
  } finally {
    db.close();
  }
}

const tables = (path: string) =>
  inspect(path, (db) => (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((row) => row.name));

interface MigrationRow {
  id: string;
  checksum: string;
  finished_at: string | null;
  migration_name: string;
  logs: string | null;
  rolled_back_at: string | null;
  started_at: string;
  applied_steps_count: number;
}
const migrationRows = (path: string) =>
  inspect(path, (db) => db.prepare('SELECT * FROM _prisma_migrations ORDER BY started_at, migration_name').all() as MigrationRow[]);

/** Connects through the store's adapter, runs `work`, disconnects. */
async function withAdapter<T>(path: string, work: (adapter: Awaited<ReturnType<SerializedSqliteAdapterFactory['connect']>>) => Promise<T>): Promise<T> {
  const adapter = await new SerializedSqliteAdapterFactory(urlOf(path)).connect();
  try {
    return await work(adapter);
  } finally {
    await adapter.dispose();
  }
}

async function migratedFile(): Promise<string> {
  const path = freshFile();
  await migrate(new SerializedSqliteAdapterFactory(urlOf(path)), KITS.sqlite);
  return path;
}

describe('shippedMigrations', () => {
  it('reads the SQLite migrations in order, each with its SHA-256 checksum', () => {
    const files = shippedMigrations('sqlite');
    expect(SHIPPED.length).toBeGreaterThan(1);
    expect(files.map((file) => file.name)).toEqual(SHIPPED);
    expect(files[0].sql).toBe(INIT_SQL);
    for (const file of files)
      expect(file.checksum).toBe(
        createHash('sha256')
          .update(readFileSync(join(SQLITE_DIR, file.name, 'migration.sql')))
          .digest('hex'),
      );
  });
});

describe('migrate on SQLite', () => {
  it('applies the init migration to a fresh file and records it as Prisma does', async () => {
    const path = freshFile();
    const report = await migrate(new SerializedSqliteAdapterFactory(urlOf(path)), KITS.sqlite);

    expect(report).toEqual({ applied: SHIPPED, unchanged: [], modified: [] });
    expect(tables(path)).toEqual(expect.arrayContaining([...AGENT_TABLES, '_prisma_migrations']));
    const rows = migrationRows(path);
    expect(rows.map((row) => row.migration_name).sort()).toEqual(SHIPPED);
    const row = rows.find((r) => r.migration_name === INIT)!;
    expect(row.migration_name).toBe(INIT);
    expect(row.checksum).toBe(
      createHash('sha256')
        .update(readFileSync(join(SQLITE_DIR, INIT, 'migration.sql')))
        .digest('hex'),
    );
    expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(row.finished_at).not.toBeNull();
    expect(row.started_at).not.toBeNull();
    expect(row.rolled_back_at).toBeNull();
    expect(row.applied_steps_count).toBe(1);
    expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('the migrated schema works: foreign keys cascade', async () => {
    const path = await migratedFile();
    inspect(path, (db) => {
      db.pragma('foreign_keys = ON');
      db.prepare("INSERT INTO agent_thread (id) VALUES ('t1')").run();
      db.prepare("INSERT INTO agent_message (thread_id, seq, role, content) VALUES ('t1', 1, 'user', '\"hi\"')").run();
      expect(() => db.prepare("INSERT INTO agent_message (thread_id, seq, role, content) VALUES ('nope', 1, 'user', '1')").run()).toThrow(/FOREIGN KEY/);
      db.prepare("DELETE FROM agent_thread WHERE id = 't1'").run();
      expect(db.prepare('SELECT count(*) AS n FROM agent_message').get()).toEqual({ n: 0 });
    });
  });

  it('a later migration that redefines tables keeps every row of a database in use, and foreign keys stay on', async () => {
    const path = freshFile();
    const [init, ...later] = shippedMigrations('sqlite');
    expect(later.some((file) => file.sql.includes('DROP TABLE "agent_thread"'))).toBe(true);
    await withAdapter(path, (adapter) => applyMigrations(adapter, KITS.sqlite, [init]));
    inspect(path, (db) => {
      db.exec(`INSERT INTO agent_thread (id, metadata) VALUES ('p', '{"b":1,"a":2}'), ('c', NULL);
        INSERT INTO agent_message (thread_id, seq, role, content, message_id) VALUES ('p', 1, 'user', '"hi"', 'm1'), ('p', 2, 'assistant', '[{"type":"text","text":"yo"}]', NULL);
        INSERT INTO agent_boundary (thread_id, seq, kind, cut_seq, messages, message_count, source_count) VALUES ('p', 3, 'repair', 2, '[]', 0, 2);
        INSERT INTO agent_repair (thread_id, seq, message) VALUES ('p', 3, '{}');
        INSERT INTO agent_subsession (parent_id, child_id) VALUES ('p', 'c');`);
    });
    const counts = () =>
      inspect(path, (db) => AGENT_TABLES.map((table) => [table, (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n]));
    const before = counts();
    await withAdapter(path, async (adapter) => {
      expect(await applyMigrations(adapter, KITS.sqlite, [init, ...later])).toEqual({
        applied: later.map((file) => file.name),
        unchanged: [init.name],
        modified: [],
      });
      // The connection the migrator used has its foreign keys back on.
      const pragma = await adapter.queryRaw({ sql: 'PRAGMA foreign_keys', args: [], argTypes: [] });
      expect(Number(pragma.rows[0][0])).toBe(1);
    });
    expect(counts()).toEqual(before);
    expect(before.filter(([, n]) => n === 0).map(([table]) => table)).toEqual(['agent_tombstone']);
    inspect(path, (db) => {
      expect(db.prepare("SELECT metadata FROM agent_thread WHERE id = 'p'").get()).toEqual({ metadata: '{"b":1,"a":2}' });
      expect(db.prepare('SELECT content, value_types FROM agent_message WHERE seq = 2').get()).toEqual({
        content: '[{"type":"text","text":"yo"}]',
        value_types: null,
      });
    });
  });

  it('a database holding one message id twice in a thread fails the unique key and is left as it was', async () => {
    const path = freshFile();
    const [init, ...later] = shippedMigrations('sqlite');
    await withAdapter(path, (adapter) => applyMigrations(adapter, KITS.sqlite, [init]));
    inspect(path, (db) =>
      db.exec(`INSERT INTO agent_thread (id) VALUES ('p');
        INSERT INTO agent_message (thread_id, seq, role, content, message_id) VALUES ('p', 1, 'user', '"a"', 'twice'), ('p', 2, 'user', '"b"', 'twice');`),
    );
    const schema = () => inspect(path, (db) => db.prepare("SELECT sql FROM sqlite_master WHERE name LIKE 'agent_%' ORDER BY name").all());
    const before = schema();
    await expect(withAdapter(path, (adapter) => applyMigrations(adapter, KITS.sqlite, [init, ...later]))).rejects.toThrow(/unique/i);
    expect(schema()).toEqual(before);
    expect(migrationRows(path).map((row) => row.migration_name)).toEqual([init.name]);
    expect(inspect(path, (db) => db.prepare('SELECT count(*) AS n FROM agent_message').get())).toEqual({ n: 2 });
  });

  it('applying again is a no-op', async () => {
    const path = await migratedFile();
    const before = migrationRows(path);
    const report = await migrate(new SerializedSqliteAdapterFactory(urlOf(path)), KITS.sqlite);

    expect(report).toEqual({ applied: [], unchanged: SHIPPED, modified: [] });
    expect(migrationRows(path)).toEqual(before);
  });

  // A short busy timeout only keeps a failure quick: migrating this schema takes milliseconds.
  const BUSY = { busyTimeoutMs: 2_000 };

  it('two migrate() calls at once on one fresh file both succeed and apply the migration once', async () => {
    const path = freshFile();
    const started = Date.now();
    const reports = await Promise.all([
      migrate(new SerializedSqliteAdapterFactory(urlOf(path), BUSY), KITS.sqlite),
      migrate(new SerializedSqliteAdapterFactory(urlOf(path), BUSY), KITS.sqlite),
    ]);

    expect(reports.map((report) => report.applied).flat()).toEqual(SHIPPED);
    expect(reports.map((report) => report.unchanged).flat()).toEqual(SHIPPED);
    expect(migrationRows(path)).toHaveLength(SHIPPED.length);
    expect(tables(path)).toEqual(expect.arrayContaining(AGENT_TABLES));
    // Neither waited out the busy timeout.
    expect(Date.now() - started).toBeLessThan(BUSY.busyTimeoutMs);
  });

  it('two migrate() calls at once through one factory both succeed', async () => {
    const path = freshFile();
    const factory = new SerializedSqliteAdapterFactory(urlOf(path), BUSY);
    const reports = await Promise.all([migrate(factory, KITS.sqlite), migrate(factory, KITS.sqlite)]);

    expect(reports.map((report) => report.applied).flat()).toEqual(SHIPPED);
    expect(migrationRows(path)).toHaveLength(SHIPPED.length);
  });
});

describe('applyMigrations on SQLite', () => {
  it('reports a migration changed after it was applied and does not re-run it', async () => {
    const path = await migratedFile();
    const before = migrationRows(path);
    const sql = `${INIT_SQL}\nCREATE TABLE "agent_extra" ("id" TEXT NOT NULL PRIMARY KEY);\n`;
    const changed: MigrationFile[] = [{ name: INIT, sql, checksum: checksumOf(sql) }];

    const report = await withAdapter(path, (adapter) => applyMigrations(adapter, KITS.sqlite, changed));

    expect(report).toEqual({ applied: [], unchanged: [], modified: [INIT] });
    expect(migrationRows(path)).toEqual(before);
    expect(tables(path)).not.toContain('agent_extra');
  });

  it('applies a new migration after the shipped ones and records it', async () => {
    const path = await migratedFile();
    const sql = 'CREATE TABLE "agent_extra" ("id" TEXT NOT NULL PRIMARY KEY);\n';
    const files = [...shippedMigrations('sqlite'), { name: '20991231000000_extra', sql, checksum: checksumOf(sql) }];

    const report = await withAdapter(path, (adapter) => applyMigrations(adapter, KITS.sqlite, files));

    expect(report).toEqual({ applied: ['20991231000000_extra'], unchanged: SHIPPED, modified: [] });
    expect(tables(path)).toContain('agent_extra');
    expect(migrationRows(path).map((row) => [row.migration_name, row.checksum])).toEqual(
      expect.arrayContaining([
        [INIT, checksumOf(INIT_SQL)],
        ['20991231000000_extra', checksumOf(sql)],
      ]),
    );
  });

  it('a pending migration that fails halfway leaves nothing behind', async () => {
    const path = await migratedFile();
    const before = migrationRows(path);
    const sql = 'CREATE TABLE "agent_half" ("id" TEXT NOT NULL PRIMARY KEY);\nINSERT INTO "no_such_table" VALUES (1);\n';
    const files = [...shippedMigrations('sqlite'), { name: '20991231000000_half', sql, checksum: checksumOf(sql) }];

    await expect(withAdapter(path, (adapter) => applyMigrations(adapter, KITS.sqlite, files))).rejects.toMatchObject({
      name: 'DriverAdapterError',
      cause: { kind: 'TableDoesNotExist', table: 'no_such_table' },
    });

    expect(tables(path)).not.toContain('agent_half');
    expect(migrationRows(path)).toEqual(before);
    // Nothing is left locked either: the shipped migrations still run cleanly afterwards.
    const report = await migrate(new SerializedSqliteAdapterFactory(urlOf(path)), KITS.sqlite);
    expect(report).toEqual({ applied: [], unchanged: SHIPPED, modified: [] });
  });

  it('on a fresh file a failure in a later migration rolls back the earlier ones of the same run', async () => {
    const path = freshFile();
    const sql = 'CREATE TABLE "agent_half" ("id" TEXT);\nTHIS IS NOT SQL;\n';
    const files = [...shippedMigrations('sqlite'), { name: '20991231000000_half', sql, checksum: checksumOf(sql) }];

    await expect(withAdapter(path, (adapter) => applyMigrations(adapter, KITS.sqlite, files))).rejects.toThrow();

    const left = tables(path);
    expect(left).not.toContain('agent_half');
    for (const table of AGENT_TABLES) expect(left).not.toContain(table);
    // The bookkeeping table, created in the same transaction, is gone too.
    expect(left).not.toContain('_prisma_migrations');
  });

  it('a migration recorded as started but never finished blocks every later run', async () => {
    const path = await migratedFile();
    inspect(path, (db) =>
      db
        .prepare(
          "INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES ('stuck', ?, '20991231000000_stuck', current_timestamp, NULL, 0)",
        )
        .run('0'.repeat(64)),
    );
    const sql = 'CREATE TABLE "agent_after" ("id" TEXT);\n';
    const files = [...shippedMigrations('sqlite'), { name: '20991231000001_after', sql, checksum: checksumOf(sql) }];

    const attempt = withAdapter(path, (adapter) => applyMigrations(adapter, KITS.sqlite, files));
    await expect(attempt).rejects.toBeInstanceOf(FailedMigrationError);
    await expect(attempt).rejects.toThrow(/20991231000000_stuck/);
    expect(tables(path)).not.toContain('agent_after');
    expect(migrationRows(path)).toHaveLength(SHIPPED.length + 1);

    // migrate() passes it through unchanged.
    await expect(migrate(new SerializedSqliteAdapterFactory(urlOf(path)), KITS.sqlite)).rejects.toBeInstanceOf(FailedMigrationError);
  });

  it('a migration marked rolled back (prisma migrate resolve --rolled-back) no longer blocks and is applied again', async () => {
    const path = await migratedFile();
    inspect(path, (db) =>
      db
        .prepare(
          "INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, rolled_back_at, applied_steps_count) VALUES ('old', ?, '20991231000000_retry', current_timestamp, NULL, current_timestamp, 0)",
        )
        .run('0'.repeat(64)),
    );
    const sql = 'CREATE TABLE "agent_retry" ("id" TEXT);\n';
    const files = [...shippedMigrations('sqlite'), { name: '20991231000000_retry', sql, checksum: checksumOf(sql) }];

    const report = await withAdapter(path, (adapter) => applyMigrations(adapter, KITS.sqlite, files));

    expect(report).toEqual({ applied: ['20991231000000_retry'], unchanged: SHIPPED, modified: [] });
    expect(tables(path)).toContain('agent_retry');
  });
});

describe("takeover by Prisma's schema engine", () => {
  // What `prisma migrate deploy` does, through the wasm engine; the files it opened are not touched afterwards.
  const prismaDeploy = (path: string) =>
    withSchemaEngine(schemaPath('sqlite'), new PrismaBetterSqlite3({ url: urlOf(path) }), (engine) => deployWithPrisma(engine, 'sqlite'));

  it('the engine, given a fresh file, applies the shipped migration (the input is understood)', async () => {
    expect(await prismaDeploy(freshFile())).toEqual(SHIPPED);
  });

  it('after our runner migrated a file, the engine applies nothing', async () => {
    const path = await migratedFile();
    expect(await prismaDeploy(path)).toEqual([]);
  });
});

describe('splitStatements', () => {
  it('splits on semicolons and drops empty statements', () => {
    expect(splitStatements('SELECT 1; ;\n\nSELECT 2;;  ;\n')).toEqual(['SELECT 1', 'SELECT 2']);
    expect(splitStatements('SELECT 1')).toEqual(['SELECT 1']);
    expect(splitStatements('  ;\n; ')).toEqual([]);
    expect(splitStatements('')).toEqual([]);
  });

  it('does not split inside single-quoted strings, doubled quotes included', () => {
    expect(splitStatements("INSERT INTO t VALUES ('a;b', 'it''s; fine'); SELECT 2;")).toEqual(["INSERT INTO t VALUES ('a;b', 'it''s; fine')", 'SELECT 2']);
  });

  it('does not split inside double-quoted or backquoted identifiers', () => {
    expect(splitStatements('CREATE TABLE "a;b" ("c;""d" TEXT); CREATE TABLE `e;f` (`g;``h` INT);')).toEqual([
      'CREATE TABLE "a;b" ("c;""d" TEXT)',
      'CREATE TABLE `e;f` (`g;``h` INT)',
    ]);
  });

  it('does not split inside -- comments, and drops statements that are only comments', () => {
    expect(splitStatements('-- CreateTable; really\nCREATE TABLE t (a INT);\n-- trailing; comment\n')).toEqual(['CREATE TABLE t (a INT)']);
    expect(splitStatements('-- only; a comment')).toEqual([]);
  });

  it('does not split inside /* */ comments', () => {
    expect(splitStatements('SELECT /* a; b */ 1; /* ; */ SELECT 2;')).toEqual(['SELECT  1', 'SELECT 2']);
    expect(splitStatements('/* only; a comment */;')).toEqual([]);
  });

  it('a quote inside a comment does not open a string', () => {
    expect(splitStatements("-- don't\nSELECT 1; /* it's */ SELECT 2;")).toEqual(['SELECT 1', 'SELECT 2']);
  });

  it('splits the shipped migrations into the statements SQLite runs', () => {
    const statements = splitStatements(INIT_SQL);
    expect(statements.filter((statement) => statement.startsWith('CREATE TABLE'))).toHaveLength(AGENT_TABLES.length);
    expect(statements.filter((statement) => /^CREATE (UNIQUE )?INDEX/.test(statement))).toHaveLength(4);
    for (const statement of statements) expect(statement).not.toMatch(/^--|;$/);
    for (const provider of ['postgresql', 'mysql'] as const) {
      for (const file of shippedMigrations(provider)) {
        for (const statement of splitStatements(file.sql)) expect(statement).toMatch(/^(CREATE|ALTER|DROP)\b/);
      }
    }
  });
});

test('splitStatements keeps a PostgreSQL dollar-quoted body whole', () => {
  const script = 'CREATE FUNCTION f() RETURNS int AS $body$ BEGIN RETURN 1; END $body$ LANGUAGE plpgsql;\nSELECT $$a;b$$;\nSELECT 1';
  expect(splitStatements(script)).toEqual([
    'CREATE FUNCTION f() RETURNS int AS $body$ BEGIN RETURN 1; END $body$ LANGUAGE plpgsql',
    'SELECT $$a;b$$',
    'SELECT 1',
  ]);
});
