// The store's models, prisma/models.prisma (shipped with the package), as each
// database's schema takes them, and the tables and columns they make. The
// build scripts render the store's own schemas from here, the prisma-models
// command prints them for an application's schema, and the boot check reads
// from here what to look for: one source, so none of them can drift.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Provider } from './provider-kit.js';

export const MODELS_PATH = fileURLToPath(new URL('../../prisma/models.prisma', import.meta.url));

/** A top-level block of a Prisma schema (`model X { … }`, `enum`, `view`, `type`), with the `///` doc comments above it. */
export interface SchemaBlock {
  keyword: string;
  name: string;
  text: string;
}

/** Whose a table is: the store's, or an integration's whose provider checks it when it starts (LangGraph's checkpointer). */
export type TablePart = 'store' | 'langgraph';

export interface StoreTable {
  table: string;
  columns: string[];
  part: TablePart;
}

/** The models as each provider's schema takes them (a new provider does not type-check until it has its entry). */
const SCHEMA_MODELS: Record<Provider, (models: string) => string> = {
  // SQLite has no native types.
  sqlite: (models) => models.replace(/[ \t]+@db\.\w+(\([^)]*\))?/g, ''),
  // PostgreSQL's text has no length.
  postgresql: (models) => models.replaceAll('@db.LongText', '@db.Text'),
  mysql: (models) => models,
};

/** `models` as `provider`'s schema takes them. */
export const modelsFor = (provider: Provider, models: string): string => SCHEMA_MODELS[provider](models);

// The closing brace stands alone on its line (a comment may follow it) in any schema Prisma formats or parses; a brace inside a line is a value.
const BLOCK = /^((?:[ \t]*\/\/\/.*\n)*)[ \t]*(model|enum|view|type)[ \t]+(\w+)[ \t]*\{[^\n]*\n[\s\S]*?^[ \t]*\}[ \t]*(?:\/\/.*)?$/gm;

/** The top-level blocks of a schema's text, in order. */
export function schemaBlocks(schema: string): SchemaBlock[] {
  return [...schema.matchAll(BLOCK)].map((match) => ({ keyword: match[2], name: match[3], text: match[0].trim() }));
}

let models: string | undefined;
const shippedModels = () => (models ??= readFileSync(MODELS_PATH, 'utf8'));

/** The store's model blocks as `provider`'s schema takes them. */
export const storeModels = (provider: Provider): SchemaBlock[] => schemaBlocks(modelsFor(provider, shippedModels()));

let tables: StoreTable[] | undefined;

/** The tables the store's models make, each with its columns (relation fields have none). */
export function storeTables(): StoreTable[] {
  if (tables) return tables;
  const blocks = schemaBlocks(shippedModels());
  const modelNames = new Set(blocks.map((block) => block.name));
  tables = blocks.map(({ name, text }) => {
    const columns: string[] = [];
    for (const line of text.split('\n').slice(1, -1)) {
      const [field, type] = line.trim().split(/\s+/);
      if (!field || !type || field.startsWith('//') || field.startsWith('@@')) continue;
      if (modelNames.has(type.replace(/[?[\]]/g, ''))) continue;
      columns.push(/@map\("([^"]+)"\)/.exec(line)?.[1] ?? field);
    }
    const table = /@@map\("([^"]+)"\)/.exec(text)?.[1] ?? name;
    return { table, columns, part: table.startsWith('agent_lg_') ? 'langgraph' : 'store' };
  });
  return tables;
}

/** The tables of one part. */
export const tablesOf = (part: TablePart): StoreTable[] => storeTables().filter((table) => table.part === part);
