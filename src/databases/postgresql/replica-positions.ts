// Positions in PostgreSQL's write-ahead log (LSNs), for reads from hot standbys.
import type { ReplicaPositions } from '../provider-kit.js';

/** An LSN's text form (`16/B374D848`: the high and low 32 bits in hex) as one number. */
export function lsnOf(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

export const replicaPositions: ReplicaPositions = {
  // The WAL written, not inserted: the insert position is past a page header when a record ends at a page's end,
  // where no replica ever replays to. A commit is written (and flushed) before it is acknowledged.
  written: async (query) => lsnOf(String((await query('SELECT pg_current_wal_lsn()::text'))[0][0])),
  replayed: async (query) => {
    // A promoted standby still answers its last replayed position: only a server in recovery is a replica.
    const [[recovering, replayed]] = await query('SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text');
    return recovering === true && typeof replayed === 'string' ? lsnOf(replayed) : null;
  },
};
