// The migrations this package ships, as prisma/migrations/<provider>/<name>/migration.sql.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Provider } from './provider-kit.js';

export interface MigrationFile {
  name: string;
  sql: string;
  /** As Prisma computes it: the SHA-256 of migration.sql, in lower-case hex. */
  checksum: string;
}

const MIGRATIONS_ROOT = fileURLToPath(new URL('../../prisma/migrations/', import.meta.url));

export function shippedMigrations(provider: Provider, root = MIGRATIONS_ROOT): MigrationFile[] {
  const dir = join(root, provider);
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: checksumOf(sql) };
    });
}

export const checksumOf = (sql: string) => createHash('sha256').update(sql).digest('hex');

/**
 * Splits a migration script into statements, so each runs on its own through
 * the driver adapter (better-sqlite3 and mariadb take one statement per call).
 * Semicolons inside quotes, identifiers, PostgreSQL dollar-quoted bodies and
 * comments do not split. MySQL's backslash escapes inside strings are not
 * understood: the migrations Prisma writes never use them.
 */
export function splitStatements(script: string): string[] {
  const statements: string[] = [];
  let current = '';
  for (let i = 0; i < script.length; i++) {
    const char = script[i];
    if (char === '-' && script[i + 1] === '-') {
      const end = script.indexOf('\n', i);
      i = end === -1 ? script.length : end;
      current += '\n';
    } else if (char === '/' && script[i + 1] === '*') {
      const end = script.indexOf('*/', i + 2);
      i = end === -1 ? script.length : end + 1;
    } else if (char === '$' && /^\$[A-Za-z_]*\$/.test(script.slice(i, i + 64))) {
      const tag = /^\$[A-Za-z_]*\$/.exec(script.slice(i, i + 64))![0];
      const end = script.indexOf(tag, i + tag.length);
      const stop = end === -1 ? script.length : end + tag.length;
      current += script.slice(i, stop);
      i = stop - 1;
    } else if (char === "'" || char === '"' || char === '`') {
      let end = i + 1;
      while (end < script.length && !(script[end] === char && script[end + 1] !== char)) end += script[end] === char ? 2 : 1;
      current += script.slice(i, end + 1);
      i = end;
    } else if (char === ';') {
      if (current.trim()) statements.push(current.trim());
      current = '';
    } else {
      current += char;
    }
  }
  if (current.trim()) statements.push(current.trim());
  return statements;
}
