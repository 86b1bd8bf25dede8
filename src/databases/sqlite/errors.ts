// What SQLite's errors mean to the store: a busy or locked file (worth retrying), a unique key taken.
import { adapterFailureOf } from '../../engine/db-errors.js';
import type { FailureKind } from '../../engine/provider-kit.js';

const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const BUSY_CODE = /^SQLITE_(BUSY|LOCKED)/;

// Busy and locked, as the adapter reports them (kind sqlite, or SocketTimeout with the driver's code) or better-sqlite3 throws them.
export function classifySqlite(error: unknown): FailureKind | undefined {
  const failure = adapterFailureOf(error);
  const code = failure ? failure.originalCode : (error as { code?: unknown })?.code;
  if (typeof code === 'string' && BUSY_CODE.test(code)) return 'transient';
  // better-sqlite3's own code on the fast paths: a unique key (a message id the thread holds) that is taken.
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return 'conflict';
  if (failure?.kind === 'sqlite' && [SQLITE_BUSY, SQLITE_LOCKED].includes((failure.extendedCode ?? 0) & 0xff)) return 'transient';
  return undefined;
}
