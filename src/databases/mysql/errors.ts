// What MySQL's and MariaDB's errors mean to the store, by error number.
import { adapterFailureOf } from '../../engine/db-errors.js';
import type { FailureKind } from '../../engine/provider-kit.js';
import { REFUSALS } from './refusals.js';

// Server: lock wait timeout, deadlock; duplicate key; value out of range; too many connections, too many connections
// for the user, a Galera node not ready (out of the cluster, or joining it), shutting down, connection killed, disconnected for inactivity, and the refusals (access denied,
// unknown database). Connector: connection closed (45001, 45009, 45013), connection, socket or pool timeout (45012,
// 45026, 45028), session setup failed (45029), pool closed or closing (45027, 45037).
const ERRNO_KINDS: Record<number, FailureKind> = {
  1205: 'transient',
  1213: 'transient',
  1062: 'conflict',
  1264: 'validation',
  ...Object.fromEntries(
    // 1820: a login let in only to change its expired password; every statement is refused.
    [1040, 1203, 1047, 1053, 1820, 1927, 4031, ...REFUSALS, 45001, 45009, 45012, 45013, 45026, 45027, 45028, 45029, 45037].map(
      (errno) => [errno, 'unavailable'] as const,
    ),
  ),
};

// Error numbers as the adapter reports them (kind mysql), or as the connector throws them on the fast paths.
export function classifyMysql(error: unknown): FailureKind | undefined {
  const failure = adapterFailureOf(error);
  const { name, errno } = (error ?? {}) as { name?: unknown; errno?: unknown };
  const code = failure?.kind === 'mysql' ? Number(failure.code) : name === 'SqlError' && typeof errno === 'number' ? errno : undefined;
  return code === undefined ? undefined : ERRNO_KINDS[code];
}
