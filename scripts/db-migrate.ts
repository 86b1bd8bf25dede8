// `npm run db:migrate`: applies the shipped migrations to the database in
// DATABASE_URL. The module migrates only its embedded SQLite default at start-up;
// a server database is migrated by this, once per deploy, before the app starts.
import { Logger } from '@nestjs/common';
import { migrateUrl } from '../src/engine/open-database.js';
import { redactText, redactUrl } from '../src/values/redact.js';
import { StoreError } from '../src/store.errors.js';
import { resolveOptions, type ResolvedStoreOptions } from '../src/store.options.js';

const logger = new Logger('db:migrate');

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('set DATABASE_URL to file:<path>, postgresql://user:pass@host:5432/db or mysql://user:pass@host:3306/db');
  // Given a url and no client, resolveOptions always resolves to a url source.
  const options = resolveOptions({ url }) as Extract<ResolvedStoreOptions, { source: 'url' }>;
  const target = redactUrl(url);

  // A StoreError's message has no secret (toStoreError redacts the driver's words); anything else is redacted here.
  const said = (error: Error) => (error instanceof StoreError ? error.message : redactText(String(error?.message ?? error)));
  const report = await migrateUrl(options, logger).catch((error: Error) => Promise.reject(new Error(`${target}: ${said(error)}`)));
  logger.log(`${target}: ${report.applied.length > 0 ? `applied ${report.applied.join(', ')}` : 'no pending migrations'}`);
  if (report.unchanged.length > 0) logger.log(`already applied: ${report.unchanged.join(', ')}`);
  if (report.modified.length > 0) {
    logger.warn(
      `changed after they were applied, NOT re-run: ${report.modified.join(', ')}; ` +
        'the database keeps the schema of the files as they were: restore the shipped files or reconcile it by hand',
    );
  }
}

main().catch((error: Error) => {
  // One line, no stack: driver messages can span several.
  logger.error(error.message.replace(/\s*\n\s*/g, ' '));
  process.exitCode = 1;
});
