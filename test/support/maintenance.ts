// What the tests of purge and tenant erasure share: a maintenance app on a store's
// database (as an operator's job would run, with the adapters beside it), and every
// table of the schema as the catalog lists it, dumped cell by cell.
import { Test } from '@nestjs/testing';
import { StoreMaintenance, StoreModule } from '../../src/index.js';
import { StoreDatabase } from '../../src/engine/database.js';
import { ClaudeSessionStore } from '../../src/integrations/claude-agent-sdk/index.js';
import { LangGraphCheckpointer } from '../../src/integrations/langgraph/index.js';
import { OpenAIAgentsSessions } from '../../src/integrations/openai-agents/index.js';

export interface MaintenanceApp {
  maintenance: StoreMaintenance;
  db: StoreDatabase;
  checkpointer: LangGraphCheckpointer;
  claude: ClaudeSessionStore;
  openai: OpenAIAgentsSessions;
  close(): Promise<void>;
}

/** A second app on the database at `url` (migrated already), with StoreMaintenance and the adapters. */
export async function maintenanceApp(url: string): Promise<MaintenanceApp> {
  const app = await Test.createTestingModule({
    imports: [StoreModule.forRoot({ url })],
    providers: [LangGraphCheckpointer, ClaudeSessionStore, OpenAIAgentsSessions],
  }).compile();
  await app.init();
  return {
    maintenance: app.get<StoreMaintenance>(StoreMaintenance),
    db: app.get(StoreDatabase),
    checkpointer: app.get(LangGraphCheckpointer),
    claude: app.get(ClaudeSessionStore),
    openai: app.get(OpenAIAgentsSessions),
    close: () => app.close(),
  };
}

/** Every table of the database, from its catalog. */
export async function tablesOf(db: StoreDatabase): Promise<string[]> {
  const query: Record<string, string> = {
    sqlite: "SELECT name AS name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
    postgresql: "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
    mysql: "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE'",
  };
  const rows = await db.client.$queryRawUnsafe<{ name: string }[]>(query[db.kit.provider]);
  return rows.map((row) => String(row.name)).sort();
}

/** A cell as comparable text: bytes as hex, dates as ISO, numbers and bigints as decimals. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof Uint8Array) return `bytes:${Buffer.from(value).toString('hex')}`;
  if (value instanceof Date) return `date:${value.toISOString()}`;
  return `${typeof value}:${String(value)}`;
}

export type Dump = Record<string, string[]>;

/** Every row of every table, each row one line of its cells, sorted. */
export async function dumpOf(db: StoreDatabase): Promise<Dump> {
  const dump: Dump = {};
  for (const table of await tablesOf(db)) {
    const rows = await db.client.$queryRawUnsafe<Record<string, unknown>[]>(`SELECT * FROM ${table}`);
    dump[table] = rows
      .map((row) =>
        JSON.stringify(
          Object.entries(row)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([column, value]) => [column, cellText(value)]),
        ),
      )
      .sort();
  }
  return dump;
}

/** Where any of `needles` occurs in the database, in any cell of any table (text, or bytes as UTF-8): `table: row` for each row. */
export async function findIn(db: StoreDatabase, needles: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const table of await tablesOf(db)) {
    const rows = await db.client.$queryRawUnsafe<Record<string, unknown>[]>(`SELECT * FROM ${table}`);
    for (const row of rows) {
      const hit = Object.values(row).some((value) => {
        if (value instanceof Uint8Array) return needles.some((needle) => Buffer.from(value).includes(needle));
        return needles.some((needle) => cellText(value).includes(needle));
      });
      if (hit) found.push(`${table}: ${JSON.stringify(row, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value))}`);
    }
  }
  return found;
}
