// The results as tables (Markdown, printed and written to latest.md) and as
// JSON (latest.json), with the versions and the machine they were measured on.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, release, totalmem, type } from 'node:os';
import { join } from 'node:path';
import type { Sizes } from './config.js';
import { LABELS } from './databases.js';
import type { Cell, RowResult, SuiteResult } from './suite.js';
import { COLUMNS } from './targets/index.js';
import type { TargetKey } from './targets/target.js';
import { sizedLabel } from './workloads.js';

const ROOT = join(import.meta.dirname, '..');

/** Versions reported: display name → package folder under node_modules. */
const PACKAGES: Record<string, string> = Object.fromEntries(
  [
    'prisma',
    '@prisma/client',
    '@prisma/adapter-better-sqlite3',
    '@prisma/adapter-pg',
    '@prisma/adapter-mariadb',
    'better-sqlite3',
    'pg',
    'mariadb',
    '@nestjs/core',
    '@mastra/core',
    '@mastra/libsql',
    '@mastra/pg',
    '@libsql/client',
    '@langchain/langgraph-checkpoint',
    '@langchain/langgraph-checkpoint-sqlite',
    '@langchain/langgraph-checkpoint-postgres',
  ].map((name) => [name, name]),
);
// Prisma's MariaDB adapter brings a connector of its own.
PACKAGES['mariadb (in @prisma/adapter-mariadb)'] = '@prisma/adapter-mariadb/node_modules/mariadb';

export interface Skipped {
  label: string;
  reason: string;
}

export interface Report {
  generatedAt: string;
  /** The commit measured, and whether src/ or prisma/ had changes not committed. */
  commit: string;
  /** How long the whole run took. */
  seconds: number;
  quick: boolean;
  sizes: Sizes;
  machine: { cpu: string; cores: number; memoryGiB: number; kernel: string };
  versions: Record<string, string>;
  databases: (Omit<SuiteResult, 'rows'> & {
    rows: (Omit<RowResult, 'cells'> & {
      cells: Partial<Record<TargetKey, Cell & { ratio?: number }>>;
      /** Tenant-scoped rows: the store's speed scoped relative to its speed on the `unscoped` row (above 1 is faster). */
      scopedRatio?: number;
      /** The store on the app's own client relative to the store on its url, on this row. */
      ownClientRatio?: number;
      /** The store in the app's transaction relative to Prisma's interactive tx, on this row. */
      inTransactionRatio?: number;
      /** The store in the app's transaction relative to the store on its url, on this row. */
      inTransactionUrlRatio?: number;
      /** The store's call alone in the app's transaction relative to the store on its url, on this row. */
      callUrlRatio?: number;
      /** The store's LangGraphCheckpointer relative to LangGraph's official saver, on the LangGraph row. */
      langgraphRatio?: number;
      /** A cluster's row: the store there relative to the store on the lone server's row that does the same work, in the same run. */
      singleServerRatio?: number;
      /** A replica row: the store given the standby relative to the same store without it. */
      replicaRatio?: number;
      /** A row with `historyAlone`: the store's speed relative to its speed on that row (the same work on a source of the effective history alone). */
      historyAloneRatio?: number;
    })[];
    /** Write rows: the store's throughput divided by the plain INSERT's (the floor). */
    floor: { key: string; workload: string; ratio: number }[];
  })[];
  skipped: Skipped[];
  errors: string[];
}

function commitOf(): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = git('status', '--porcelain', '--', 'src', 'prisma') !== '';
    return `${git('rev-parse', '--short', 'HEAD')}${dirty ? ' with uncommitted changes in src/ or prisma/' : ''}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

function packageVersion(folder: string): string {
  try {
    return (JSON.parse(readFileSync(join(ROOT, 'node_modules', folder, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'not installed';
  }
}

/** Speed of `cell` relative to `reference`, both of a row in `unit`: above 1 is faster. Throughput divides by it, durations divide it. */
function speedRatio(unit: RowResult['unit'], cell: Cell | undefined, reference: Cell | undefined): number | undefined {
  if (unit === 'statements' || unit === 'bytes' || !cell || !('value' in cell) || !reference || !('value' in reference)) return undefined;
  return unit === 'msg/s' ? cell.value / reference.value : reference.value / cell.value;
}

/** Speed relative to the raw driver (reference) on the same row. */
const ratioOf = (row: RowResult, cell: Cell | undefined) => speedRatio(row.unit, cell, row.cells.raw);

/** A tenant-scoped row: the store's speed relative to the store's on the unscoped row it names. */
function scopedRatioOf(row: RowResult, rows: RowResult[]): number | undefined {
  const unscoped = row.unscoped === undefined ? undefined : rows.find((other) => other.key === row.unscoped);
  return unscoped && speedRatio(row.unit, row.cells.ours, unscoped.cells.ours);
}

type RatioField =
  | 'scopedRatio'
  | 'ownClientRatio'
  | 'inTransactionRatio'
  | 'inTransactionUrlRatio'
  | 'callUrlRatio'
  | 'langgraphRatio'
  | 'singleServerRatio'
  | 'replicaRatio'
  | 'historyAloneRatio';

/** A cluster's row: the store's speed relative to its speed on the lone server's row (of the same engine) that does the same work. */
function singleServerRatioOf(row: RowResult, suite: SuiteResult, suites: SuiteResult[]): number | undefined {
  const single = row.singleServer === undefined ? undefined : suites.find((other) => other.engine === suite.engine && other.label === LABELS[suite.engine]);
  return single && speedRatio(row.unit, row.cells.ours, single.rows.find((other) => other.key === row.singleServer)?.cells.ours);
}

/** The columns after the targets': a speed relative to another on the same work, each a field of the row in the JSON. */
const RATIO_COLUMNS: {
  field: RatioField;
  label: string;
  of(row: RowResult, rows: RowResult[], suite: SuiteResult, suites: SuiteResult[]): number | undefined;
}[] = [
  { field: 'scopedRatio', label: 'nestjs-agent-store, tenant-scoped ÷ unscoped', of: scopedRatioOf },
  { field: 'ownClientRatio', label: 'nestjs-agent-store, own PrismaClient ÷ url', of: (row) => speedRatio(row.unit, row.cells.oursClient, row.cells.ours) },
  {
    field: 'inTransactionRatio',
    label: "nestjs-agent-store in the app's transaction ÷ Prisma 7, interactive tx",
    of: (row) => speedRatio(row.unit, row.cells.oursClientTx, row.cells.prismaTx),
  },
  {
    field: 'inTransactionUrlRatio',
    label: "nestjs-agent-store in the app's transaction ÷ url",
    of: (row) => speedRatio(row.unit, row.cells.oursClientTx, row.cells.ours),
  },
  {
    field: 'callUrlRatio',
    label: "nestjs-agent-store, its call alone in the app's transaction ÷ url",
    of: (row) => speedRatio(row.unit, row.cells.oursClientTxCall, row.cells.ours),
  },
  {
    field: 'langgraphRatio',
    label: 'nestjs-agent-store LangGraphCheckpointer ÷ official',
    of: (row) => speedRatio(row.unit, row.cells.langgraphOurs, row.cells.langgraph),
  },
  {
    field: 'singleServerRatio',
    label: 'nestjs-agent-store over the cluster ÷ on one server',
    of: (row, _rows, suite, suites) => singleServerRatioOf(row, suite, suites),
  },
  {
    field: 'replicaRatio',
    label: 'nestjs-agent-store, reading from the replica ÷ without it',
    of: (row) => speedRatio(row.unit, row.cells.oursReplica, row.cells.ours),
  },
  {
    field: 'historyAloneRatio',
    label: 'nestjs-agent-store, compacted source ÷ its history alone',
    of: (row, rows) => speedRatio(row.unit, row.cells.ours, rows.find((other) => other.key === row.historyAlone)?.cells.ours),
  },
];
const [
  SCOPED_COLUMN,
  OWN_CLIENT_COLUMN,
  IN_TRANSACTION_COLUMN,
  IN_TRANSACTION_URL_COLUMN,
  CALL_URL_COLUMN,
  LANGGRAPH_COLUMN,
  SINGLE_SERVER_COLUMN,
  REPLICA_COLUMN,
  HISTORY_ALONE_COLUMN,
] = RATIO_COLUMNS.map((column) => column.label);

/**
 * Each database's rows as narrow tables (eight columns at most, as the docs print them): a table per group of
 * columns, holding the rows with a cell in it. A column no group names gets a table of its own.
 */
const TABLE_GROUPS: { title: string; columns: string[] }[] = [
  {
    title: 'The store against the raw driver',
    columns: ['ours', 'oursClient', 'oursReplica', 'raw', 'rawPlain', 'scopedRatio', 'ownClientRatio', 'replicaRatio'],
  },
  { title: "In the app's transaction", columns: ['oursClientTx', 'oursClientTxCall', 'inTransactionRatio', 'inTransactionUrlRatio', 'callUrlRatio'] },
  { title: 'Prisma and Mastra on the same work', columns: ['prismaCreate', 'prismaTx', 'mastra'] },
  { title: 'LangGraph', columns: ['langgraph', 'langgraphOurs', 'langgraphRatio'] },
  { title: 'Against other runs of the store', columns: ['singleServerRatio', 'historyAloneRatio'] },
];

/** The store's throughput relative to the plain INSERT's (the floor) on each write row that has both. */
function floorOf(rows: RowResult[]): { key: string; workload: string; ratio: number }[] {
  return rows.flatMap((row) => {
    const ratio = row.unit === 'msg/s' ? speedRatio(row.unit, row.cells.ours, row.cells.rawPlain) : undefined;
    return ratio === undefined ? [] : [{ key: row.key, workload: row.label, ratio }];
  });
}

export interface RunFacts {
  quick: boolean;
  sizes: Sizes;
  seconds: number;
  skipped: Skipped[];
  /** Failures outside any database's suite (a server that did not start). */
  failures: string[];
}

export function buildReport(suites: SuiteResult[], { quick, sizes, seconds, skipped, failures }: RunFacts): Report {
  return {
    generatedAt: new Date().toISOString(),
    commit: commitOf(),
    seconds,
    quick,
    sizes,
    machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), kernel: `${type()} ${release()}` },
    versions: {
      node: process.version,
      ...Object.fromEntries(Object.entries(PACKAGES).map(([name, folder]) => [name, packageVersion(folder)])),
      ...Object.fromEntries(suites.map((s) => [s.label, s.version])),
    },
    databases: suites.map((suite) => ({
      ...suite,
      rows: suite.rows.map((row) => ({
        ...row,
        label: sizedLabel(row.key, row.label, sizes),
        cells: Object.fromEntries(Object.entries(row.cells).map(([key, cell]) => [key, { ...cell, ...(key !== 'raw' && { ratio: ratioOf(row, cell) }) }])),
        ...Object.fromEntries(RATIO_COLUMNS.map((column) => [column.field, column.of(row, suite.rows, suite, suites)])),
      })),
      floor: floorOf(suite.rows),
    })),
    skipped,
    errors: [...suites.flatMap((suite) => suite.errors), ...failures],
  };
}

const number = (value: number, unit: string) =>
  unit === 'ms'
    ? value < 10
      ? value.toFixed(2)
      : value < 100
        ? value.toFixed(1)
        : Math.round(value).toLocaleString('en-US')
    : Math.round(value).toLocaleString('en-US');

function cellText(cell: (Cell & { ratio?: number }) | undefined, unit: string): string {
  if (!cell) return '';
  if ('error' in cell) return 'error';
  return cell.ratio === undefined ? number(cell.value, unit) : `${number(cell.value, unit)} (${cell.ratio.toFixed(2)}x)`;
}

const escape = (text: string) => text.replaceAll('|', '\\|');

const FLOOR_LINE = 'nestjs-agent-store ÷ raw driver, plain INSERT (floor), in msg/s';

export function renderMarkdown(report: Report): string {
  const lines: string[] = [];
  lines.push(`# Benchmark${report.quick ? ' (--quick: a smoke run, not a measurement)' : ''}`, '');
  lines.push(
    `${report.generatedAt}, commit ${report.commit}, the run took ${Math.round(report.seconds)} s · ${report.machine.cpu}, ${report.machine.cores} cores, ${report.machine.memoryGiB} GiB · ${report.machine.kernel} · Node ${report.versions.node}`,
    '',
    'Each cell: the result, and in brackets its speed relative to the raw driver (reference) measured in the same run:',
    'for msg/s the ratio of throughputs, for ms the reference time divided by the time (above 1x is faster than the reference).',
    'The reference does the same atomic work on the raw driver: the sequence number is assigned in the transaction',
    'of the insert (BEGIN; UPDATE counter; INSERT; COMMIT), and reads read the same rows with the same statements in one snapshot.',
    `Write rows: a loop makes at least the calls its row says, and goes on until ${report.sizes.writeMinMs / 1000} s have passed (LangGraph's: exactly its steps);`,
    `the median of ${report.sizes.rounds} round(s) in which the targets take turns, in an order reversed every round (each round's result is in the JSON beside this file);`,
    `read rows: the median of at least ${report.sizes.readRepeats} call(s), fewer for a target whose calls take over ${report.sizes.readMaxMs / 1000} s in all.`,
    'An empty cell: the target has no comparable operation.',
    '',
    ...COLUMNS.map((kind) => `- **${kind.label}**: ${kind.description}`),
    '',
    `Rows marked "tenant-scoped" run the same work through the store's \`TenantStores.forTenant(tenant)\` stores, on sessions created by the scoped \`sessions.create\`;`,
    'the raw driver sends its statements with the tenant condition (`tenant_id = ?` in the UPDATE of an append; for a read, its first statement reads the boundary',
    'joined to the thread row under `tenant_id = ?`), so their brackets compare the scoped store with a scoped reference.',
    `Their column **${SCOPED_COLUMN}** is the scoped store's speed relative to the unscoped store's on the unscoped row of the same work in this run`,
    `(the compacted rows: the ${report.sizes.largeTranscript.toLocaleString('en-US')}-message transcript's; the sequential append runs its unscoped and scoped loops back to back`,
    "in each turn of a target), above 1x faster; issue #11's target is 0.9x or more.",
    `Column **${OWN_CLIENT_COLUMN}**: on every row the store has both ways, the store on the app's own client relative to the store on its url in this run,`,
    "above 1x faster (issue #14's target: 0.9x or more). The scoped rows compare the two scoped stores.",
    `Column **${IN_TRANSACTION_COLUMN}**: on the write rows, the store joined to the app's interactive transaction relative to Prisma's interactive tx (the same shape of work:`,
    "one interactive transaction per call); inside it the store runs its fast paths on the transaction's connection, each write in a savepoint.",
    `Column **${IN_TRANSACTION_URL_COLUMN}**: the same store relative to the store on its url; its cell holds the app's transaction as well as the store's work`,
    "(BEGIN and COMMIT through Prisma's interactive transaction, which the url mode's own transaction does without).",
    `Column **${CALL_URL_COLUMN}**: the store's call alone, timed inside the app's transaction, relative to the store on its url (whose cells include its own BEGIN and COMMIT):`,
    "what calling the store costs in a transaction the app runs anyway (issue #14's target: 0.9x or more, inside host transactions as outside).",
    'The "first message of a new thread" rows append to a thread that does not exist yet, so a statement wasted on a thread that is not there shows in them:',
    'the store creates the thread; the raw reference sends BEGIN; INSERT the thread; INSERT the message; COMMIT; the plain INSERT target sends the same two INSERTs,',
    "each autocommitted (two commits, each flushed where commits are, so not necessarily a floor there). Their statements are counted as deleteTranscript's are.",
    `The LangGraph row runs one agent step per message on a thread that grows from empty: its cells are messages (steps) per second, and its column **${LANGGRAPH_COLUMN}**`,
    "is the store's checkpointer relative to LangGraph's official saver for that database in this run (issue #15's target: 1x or more). The raw driver does no such step.",
    `The line under each table: ${FLOOR_LINE}, on each write row (issue #11's target for appends: 0.5x or more on PostgreSQL and MariaDB).`,
    `The prune rows (issue #17): a thread of ${report.sizes.pruneMessages.toLocaleString('en-US')} messages compacted ${report.sizes.pruneCompactions} times down to ${report.sizes.effectiveMessages},`,
    "pruned once by each target on a database of its own (the raw driver deletes the same rows in one transaction, the store in batches); its time is that one call's.",
    "Stored text: the bytes of the text columns of the thread's log rows. The database's size, rebuilt first so that freed space shows: SQLite, the whole file's pages",
    "after VACUUM; PostgreSQL, pg_total_relation_size of the log's tables after VACUUM FULL (a plain VACUUM only makes the space reusable);",
    'MariaDB, their data_length + index_length after OPTIMIZE TABLE (InnoDB keeps a page or so per table and index however empty).',
    `The fork rows (issue #17): \`SessionStore.fork\` of a thread of ${report.sizes.forkMessages.toLocaleString('en-US')} messages compacted ${report.sizes.pruneCompactions} times down to ${report.sizes.effectiveMessages},`,
    `and of a thread of ${report.sizes.effectiveMessages} messages never compacted, on one database holding both; each cell is the median of ${report.sizes.forks} forks, the two sources' alternating`,
    "(after an untimed fork of each, checked to hold its source's history). A fork copies the latest boundary and the log rows after its cut, in the database,",
    `so its cost follows the effective history, not the transcript: column **${HISTORY_ALONE_COLUMN}** is the store's speed forking the compacted thread relative to`,
    "forking the short one in this run (issue #17's target: about 1x). The raw driver reads the source's latest boundary, then inserts the thread row and copies",
    'the same rows by INSERT … SELECT, in one transaction;',
    'the store reads the source in a snapshot first and checks in its write that it copied the rows that snapshot saw (see src/stores/sessions/session-forks.ts).',
    `The tables after the three databases' run on servers of their own (issue #16). On a MariaDB Galera cluster of three nodes, appends spread over the nodes (an app, or a raw pool, per node;`,
    `writer w on node w mod 3), to a thread each and to one shared thread, whose conflicting commits are retried; column **${SINGLE_SERVER_COLUMN}** is the store there`,
    "relative to the store on the lone MariaDB server's row with the same writers in this run. On a PostgreSQL primary with a hot standby, the reads the store can serve from",
    `the standby, timed on the store given it, on the same store without it, and on the raw driver reading the standby; column **${REPLICA_COLUMN}** compares the first two.`,
    '',
  );
  for (const database of report.databases) {
    lines.push(`## ${database.label}`, '', `${database.version}; ${database.settings}.`, '');
    type Row = (typeof database.rows)[number];
    const columns = [
      ...COLUMNS.map((kind) => ({ key: kind.key as string, label: kind.label, text: (row: Row) => cellText(row.cells[kind.key], row.unit) })),
      ...RATIO_COLUMNS.map(({ field, label }) => ({
        key: field as string,
        label,
        text: (row: Row) => (row[field] === undefined ? '' : `${row[field].toFixed(2)}x`),
      })),
    ];
    const grouped = new Set(TABLE_GROUPS.flatMap((group) => group.columns));
    const groups = [...TABLE_GROUPS, ...columns.filter((column) => !grouped.has(column.key)).map((column) => ({ title: column.label, columns: [column.key] }))];
    for (const group of groups) {
      const shown = columns.filter((column) => group.columns.includes(column.key) && database.rows.some((row) => column.text(row) !== ''));
      const rows = database.rows.filter((row) => shown.some((column) => column.text(row) !== ''));
      if (shown.length === 0) continue;
      lines.push(
        `**${group.title}**`,
        '',
        `| workload | unit | ${shown.map((column) => column.label).join(' | ')} |`,
        `|---|---|${shown.map(() => '---:').join('|')}|`,
      );
      for (const row of rows) lines.push(`| ${escape(row.label)} | ${row.unit} | ${shown.map((column) => column.text(row)).join(' | ')} |`);
      lines.push('');
    }
    if (database.floor.length > 0) {
      lines.push(`**${FLOOR_LINE}**: ${database.floor.map((floor) => `${floor.workload} ${floor.ratio.toFixed(2)}x`).join(' · ')}.`, '');
    }
    for (const note of database.notes) lines.push(`- ${note}`);
    if (database.notes.length > 0) lines.push('');
  }
  for (const skipped of report.skipped) lines.push(`## ${skipped.label}`, '', `Skipped: ${skipped.reason}.`, '');
  if (report.errors.length > 0) lines.push('## Errors', '', ...report.errors.map((error) => `- ${escape(error)}`), '');
  lines.push(
    '## Versions',
    '',
    '| component | version |',
    '|---|---|',
    ...Object.entries(report.versions).map(([name, version]) => `| ${name} | ${version} |`),
    '',
  );
  lines.push(
    '## Sizes',
    '',
    Object.entries(report.sizes)
      .map(([name, value]) => `${name}=${value}`)
      .join(', '),
    '',
  );
  return lines.join('\n');
}
