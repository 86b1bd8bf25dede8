// `nestjs-agent-store prisma-models`: the store's models as an application's
// Prisma schema must hold them, printed or added to a schema file. Adding is
// idempotent: a model already there with the same content (spacing and
// comments aside, so `prisma format` changes nothing) is left as it is, and one
// of the same name with other content refuses the whole file, unwritten.
import { closeSync, constants, fstatSync, openSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import type { Provider } from '../engine/provider-kit.js';
import { schemaBlocks, storeModels, type SchemaBlock } from '../engine/store-models.js';

/** The text to add to a schema for `provider`: the store's models (or those of `blocks`) under a comment saying where they come from. */
export function printedModels(provider: Provider, blocks: SchemaBlock[] = storeModels(provider)): string {
  return `// The models of nestjs-agent-store, from \`nestjs-agent-store prisma-models --provider ${provider}\`.
// Keep them as printed: the store checks at start-up that their tables and columns exist.

${blocks.map((block) => block.text).join('\n\n')}
`;
}

/**
 * `schema` with the store's models it lacks appended, and their names. Throws,
 * naming them, when it holds any with other content; `name` is the schema in messages.
 */
export function mergeModels(schema: string, provider: Provider, name = 'the schema'): { schema: string; added: string[] } {
  const declared = datasourceProvider(schema);
  if (declared !== undefined && declared !== provider) {
    throw new Error(`${name}'s datasource provider is "${declared}", not "${provider}": pass the provider your schema uses`);
  }
  const present = new Map(schemaBlocks(schema).map((block) => [block.name, block]));
  const blocks = storeModels(provider);
  const differing = blocks.filter((block) => present.has(block.name) && !sameBlock(present.get(block.name)!, block)).map((block) => block.name);
  if (differing.length > 0) {
    throw new Error(
      `${name} already has ${differing.join(', ')} with other content than the store's model: nothing written. ` +
        `Replace ${differing.length > 1 ? 'them' : 'it'} with what \`nestjs-agent-store prisma-models --provider ${provider}\` prints, ` +
        'or rename yours (the store needs these names)',
    );
  }
  const clashes = nameClashes(schemaBlocks(schema), blocks);
  if (clashes.length > 0) {
    throw new Error(
      `${name} has ${clashes.join(', ')}: a name of the store's tables, or of their indexes and keys (which begin with a table's name and _), so two models would share it. ` +
        'Nothing written: give yours another name (@@map, map:)',
    );
  }
  const missing = blocks.filter((block) => !present.has(block.name));
  if (missing.length === 0) return { schema, added: [] };
  const separator = schema.trim() === '' ? '' : schema.endsWith('\n') ? '\n' : '\n\n';
  return { schema: `${schema}${separator}${printedModels(provider, missing)}`, added: missing.map((block) => block.name) };
}

/** A block's text without its comments (`//` to the end of a line, outside quotes). */
const uncommented = (text: string) => text.replace(/"(?:[^"\\\n]|\\.)*"|\/\/[^\n]*/g, (match) => (match.startsWith('"') ? match : ''));

/** The name a block takes in the database: its @@map (spaces and line breaks allowed), else its own. */
const databaseNameOf = (block: SchemaBlock) => /@@map\s*\(\s*(?:name\s*:\s*)?"([^"]*)"/.exec(uncommented(block.text))?.[1] ?? block.name;

/**
 * The application's blocks (not the store's models) that take a name of the store's in the database: a
 * table's, or one its indexes and keys take (Prisma names them after the table: `agent_thread_tenant_id_idx`).
 */
function nameClashes(schema: SchemaBlock[], store: SchemaBlock[]): string[] {
  const tables = store.map((block) => databaseNameOf(block).toLowerCase());
  const taken = (name: string, isTable: boolean) => tables.some((table) => name === table || (!isTable && name.startsWith(`${table}_`)));
  return schema
    .filter((block) => !store.some((model) => model.name === block.name))
    .flatMap((block) => {
      const own = databaseNameOf(block).toLowerCase();
      const mapped = [...uncommented(block.text).matchAll(/\bmap\s*:\s*"([^"]*)"/g)].map((match) => match[1].toLowerCase());
      return [...(taken(own, true) ? [own] : []), ...mapped.filter((name) => taken(name, false))].map((name) => `${block.keyword} ${block.name} on "${name}"`);
    });
}

/**
 * Adds the store's models the schema file lacks; returns their names (none: the
 * file is not written). A file that is not a schema's text is refused, unwritten;
 * the new text replaces the file whole (written beside it, then renamed). A
 * symbolic link is written through: its target gets the text, the link stays.
 */
export function mergeIntoFile(path: string, provider: Provider): string[] {
  const merged = mergeModels(schemaText(path), provider, path);
  if (merged.added.length > 0) {
    const target = realpathSync(path);
    const written = `${target}.${process.pid}.tmp`;
    writeFileSync(written, merged.schema);
    renameSync(written, target);
  }
  return merged.added;
}

/** The text of the schema file at `path`, or an error that says why it is not one. */
function schemaText(path: string): string {
  let bytes: Buffer;
  let fd: number | undefined;
  try {
    // Not blocking: a FIFO is opened, then refused, not waited on.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw Object.assign(new Error(), { code: 'EISDIR' });
    // A device (/dev/zero), a pipe or a socket could be read without end: only a regular file is read.
    if (!stat.isFile()) throw Object.assign(new Error(), { code: 'ENOTREG' });
    bytes = readFileSync(fd);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'there is no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'ENOTREG'
            ? 'it is not a regular file (a device, a pipe or a socket)'
            : (error as Error).message;
    throw new Error(`cannot read ${path}: ${why}`, { cause: error });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    text = '\0';
  }
  if (text.includes('\0') || (text.trim() !== '' && !/^[ \t]*(datasource|generator|model|enum|view|type)[ \t]+\w+[ \t]*\{/m.test(text))) {
    throw new Error(`${path} is not a Prisma schema (no datasource, generator or model block in UTF-8 text): nothing written`);
  }
  return text;
}

/** The provider of the schema's datasource block, if it has one (in a multi-file schema another file may). */
function datasourceProvider(schema: string): string | undefined {
  const body = /^[ \t]*datasource[ \t]+\w+[ \t]*\{([\s\S]*?)^[ \t]*\}/m.exec(schema)?.[1];
  const provider = body && /^[ \t]*provider[ \t]*=[ \t]*"([^"]*)"/m.exec(body)?.[1];
  // Prisma takes "postgres" for "postgresql".
  return provider === 'postgres' ? 'postgresql' : provider || undefined;
}

const sameBlock = (a: SchemaBlock, b: SchemaBlock) => a.keyword === b.keyword && significant(a.text) === significant(b.text);

/**
 * A block's text without comments, blank lines and what `prisma format`
 * changes: the spacing it aligns and the order of a field's attributes.
 */
function significant(text: string): string {
  return text
    .split('\n')
    .map(wordsOf)
    .filter((words) => words.length > 0)
    .map((words) => (words[0].startsWith('@@') ? words : [...words.slice(0, 2), ...words.slice(2).sort()]).join(' '))
    .join('\n');
}

/** The line's words up to a comment, split at spaces outside parentheses, brackets and quotes; spacing inside them made single. */
function wordsOf(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (!quoted && line.startsWith('//', i)) break;
    if (char === '"' && line[i - 1] !== '\\') quoted = !quoted;
    else if (!quoted && (char === '(' || char === '[')) depth++;
    else if (!quoted && (char === ')' || char === ']')) depth--;
    if (quoted || !/\s/.test(char)) word += char;
    else if (depth > 0) word += word.endsWith(' ') ? '' : ' ';
    else if (word) {
      words.push(word);
      word = '';
    }
  }
  return word ? [...words, word] : words;
}
