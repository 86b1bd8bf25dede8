// A database's schema as the catalog describes it, normalized so that
// PostgreSQL's and MySQL's can be compared: columns (nullability, a type class,
// precision, default), indexes and foreign keys with their referential actions.
import mariadb from 'mariadb';
import pg from 'pg';
import { mariadbConnection } from '../../src/databases/mysql/index.js';

export interface Catalog {
  /** `table.column` -> description */
  columns: Record<string, string>;
  /** `table: UNIQUE? (columns)`, primary keys as `table: PRIMARY (columns)` */
  indexes: string[];
  /** `table (columns) -> table (columns) ON DELETE … ON UPDATE …` */
  foreignKeys: string[];
  /** MySQL only: `table.column` -> its declared type, e.g. varchar(191) */
  declaredTypes: Record<string, string>;
}

const TYPE_CLASS: Record<string, string> = {
  text: 'string',
  varchar: 'string',
  'character varying': 'string',
  integer: 'int',
  int: 'int',
  'timestamp without time zone': 'datetime',
  datetime: 'datetime',
  jsonb: 'json',
  json: 'json',
  longtext: 'string',
  bytea: 'bytes',
  longblob: 'bytes',
};

function column(type: string, nullable: boolean, precision: number | null, defaultValue: string | null, autoIncrement: boolean): string {
  const typeClass = TYPE_CLASS[type] ?? `unknown:${type}`;
  const normalizedDefault =
    defaultValue === null || autoIncrement ? 'none' : /current_timestamp/i.test(defaultValue) ? 'now' : defaultValue.replace(/^'(.*)'$/, '$1');
  return `${typeClass}${typeClass === 'datetime' ? `(${precision})` : ''} ${nullable ? 'null' : 'not null'} default ${normalizedDefault}${autoIncrement ? ' autoincrement' : ''}`;
}

export async function postgresCatalog(url: string): Promise<Catalog> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const columns = await client.query(
      `SELECT table_name, column_name, is_nullable, data_type, datetime_precision, column_default
       FROM information_schema.columns WHERE table_schema = 'public' AND table_name LIKE 'agent\\_%'`,
    );
    const indexes = await client.query(`SELECT tablename, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename LIKE 'agent\\_%'`);
    const constraints = await client.query(
      `SELECT conrelid::regclass::text AS t, pg_get_constraintdef(oid) AS def, contype FROM pg_constraint
       WHERE contype IN ('f', 'p') AND conrelid::regclass::text LIKE 'agent\\_%'`,
    );
    const primaryKeys = new Set(constraints.rows.filter((row) => row.contype === 'p').map((row) => `${row.t}: PRIMARY ${row.def.replace('PRIMARY KEY ', '')}`));
    return {
      columns: Object.fromEntries(
        columns.rows.map((row) => [
          `${row.table_name}.${row.column_name}`,
          column(row.data_type, row.is_nullable === 'YES', row.datetime_precision, row.column_default, /^nextval\(/.test(row.column_default ?? '')),
        ]),
      ),
      indexes: [
        ...primaryKeys,
        ...indexes.rows
          .filter((row) => !row.indexdef.includes('_pkey '))
          .map((row) => `${row.tablename}: ${row.indexdef.includes('UNIQUE') ? 'UNIQUE ' : ''}(${/\((.*)\)$/.exec(row.indexdef)![1]})`),
      ].sort(),
      foreignKeys: constraints.rows
        .filter((row) => row.contype === 'f')
        .map((row) => {
          const [, from, to, toColumns, rest] = /FOREIGN KEY \((.*?)\) REFERENCES (\w+)\((.*?)\)(.*)/.exec(row.def)!;
          const onDelete = /ON DELETE (CASCADE|SET NULL|RESTRICT|SET DEFAULT)/.exec(rest)?.[1] ?? 'NO ACTION';
          const onUpdate = /ON UPDATE (CASCADE|SET NULL|RESTRICT|SET DEFAULT)/.exec(rest)?.[1] ?? 'NO ACTION';
          return `${row.t} (${from}) -> ${to} (${toColumns}) ON DELETE ${onDelete} ON UPDATE ${onUpdate}`;
        })
        .sort(),
      declaredTypes: {},
    };
  } finally {
    await client.end();
  }
}

/** MySQL's catalog, and its CHECK constraints (`table: clause`): MariaDB's JSON columns carry one. */
export async function mysqlCatalog(url: string): Promise<Catalog & { checks: string[] }> {
  const connection = await mariadb.createConnection(mariadbConnection(url));
  try {
    const columns = await connection.query(
      `SELECT TABLE_NAME t, COLUMN_NAME c, IS_NULLABLE n, DATA_TYPE dt, COLUMN_TYPE ct, DATETIME_PRECISION p, COLUMN_DEFAULT d, EXTRA x
       FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'agent\\_%'`,
    );
    const statistics = await connection.query(
      `SELECT TABLE_NAME t, INDEX_NAME i, NON_UNIQUE u, COLUMN_NAME c FROM information_schema.STATISTICS
       WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'agent\\_%' ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`,
    );
    const keys = await connection.query(
      `SELECT k.TABLE_NAME t, k.CONSTRAINT_NAME name, k.COLUMN_NAME c, k.REFERENCED_TABLE_NAME rt, k.REFERENCED_COLUMN_NAME rc, r.DELETE_RULE del, r.UPDATE_RULE upd
       FROM information_schema.KEY_COLUMN_USAGE k JOIN information_schema.REFERENTIAL_CONSTRAINTS r
         ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME
       WHERE k.TABLE_SCHEMA = DATABASE() ORDER BY k.TABLE_NAME, k.CONSTRAINT_NAME, k.ORDINAL_POSITION`,
    );
    const indexes = new Map<string, { table: string; unique: boolean; primary: boolean; columns: string[] }>();
    for (const row of statistics) {
      const key = `${row.t}.${row.i}`;
      const index = indexes.get(key) ?? { table: row.t, unique: Number(row.u) === 0, primary: row.i === 'PRIMARY', columns: [] as string[] };
      index.columns.push(row.c);
      indexes.set(key, index);
    }
    const foreignKeys = new Map<string, { table: string; columns: string[]; ref: string; refColumns: string[]; del: string; upd: string }>();
    for (const row of keys) {
      const key = `${row.t}.${row.name}`;
      const fk = foreignKeys.get(key) ?? { table: row.t, columns: [] as string[], ref: row.rt, refColumns: [] as string[], del: row.del, upd: row.upd };
      fk.columns.push(row.c);
      fk.refColumns.push(row.rc);
      foreignKeys.set(key, fk);
    }
    return {
      columns: Object.fromEntries(
        columns.map((row: Record<string, string>) => [
          `${row.t}.${row.c}`,
          column(row.dt, row.n === 'YES', row.p === null ? null : Number(row.p), row.d === 'NULL' ? null : row.d, /auto_increment/i.test(row.x)),
        ]),
      ),
      indexes: [...indexes.values()]
        .map((index) => `${index.table}: ${index.primary ? 'PRIMARY ' : index.unique ? 'UNIQUE ' : ''}(${index.columns.join(', ')})`)
        .sort(),
      foreignKeys: [...foreignKeys.values()]
        .map((fk) => `${fk.table} (${fk.columns.join(', ')}) -> ${fk.ref} (${fk.refColumns.join(', ')}) ON DELETE ${fk.del} ON UPDATE ${fk.upd}`)
        .sort(),
      declaredTypes: Object.fromEntries(columns.map((row: Record<string, string>) => [`${row.t}.${row.c}`, row.ct])),
      checks: (
        await connection.query(
          "SELECT TABLE_NAME t, CHECK_CLAUSE c FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'agent\\_%'",
        )
      ).map((row: Record<string, string>) => `${row.t}: ${row.c}`),
    };
  } finally {
    await connection.end();
  }
}
