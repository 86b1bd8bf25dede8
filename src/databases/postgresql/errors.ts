// What PostgreSQL's errors mean to the store: a conflict worth retrying, a server out of reach, or neither.
import { adapterFailureOf } from '../../engine/db-errors.js';
import type { FailureKind } from '../../engine/provider-kit.js';
import { NoPrimaryError } from './failover.js';

// Serialization failure, deadlock, lock not available.
const TRANSIENT = new Set(['40001', '40P01', '55P03']);
// Admin shutdown, crash shutdown, cannot connect now, and the connection exceptions of class 08 but its protocol
// violation (08P01): a statement the server could not take (a bind of more than 65,535 parameters), which no retry mends.
const UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', '08007']);
// node-postgres says in words that the connection went away or never came: pg-pool's timeout (a plain Error),
// a broken client. 55000 is no connection code, so its text tells a database that refuses connections.
const CONNECTION_LOST = /timeout exceeded when trying to connect|Connection terminated|is not queryable|is not currently accepting connections/;
// PgBouncer says in words of its own, under the code of a protocol violation (08P01), that it has no server to
// give: none came free within its query_wait_timeout, the server cannot be reached or went away, it takes no more clients.
const POOLER_UNAVAILABLE =
  /^(query_wait_timeout|client_login_timeout|server login has been failing|pgbouncer cannot connect to server|server conn crashed\?|no more connections allowed|no such database)/;

export function classifyPostgres(error: unknown): FailureKind | undefined {
  if (error instanceof NoPrimaryError || CONNECTION_LOST.test(String((error as Error)?.message ?? ''))) return 'unavailable';
  const failure = adapterFailureOf(error);
  if (failure?.kind !== 'postgres') return undefined;
  const code = String(failure.code);
  if (TRANSIENT.has(code)) return 'transient';
  if (code === '08P01' && POOLER_UNAVAILABLE.test(String(failure.originalMessage))) return 'unavailable';
  return UNAVAILABLE.has(code) ? 'unavailable' : undefined;
}
