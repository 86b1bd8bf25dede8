// Positions in PostgreSQL's write-ahead log (LSNs), for reads from hot standbys.
import type { ReplicaPositions } from '../../engine/provider-kit.js';

/** An LSN's text form (`16/B374D848`: the high and low 32 bits in hex) as one number. */
export function lsnOf(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

// The sizes of a WAL page's header: on a segment's first page, and on the others (MAXALIGNed, 64-bit builds).
const LONG_HEADER = 40n;
const SHORT_HEADER = 24n;

/**
 * The end of the last record inserted, from the insert position (`insert`): at a page that holds no record
 * yet, PostgreSQL says the place after the page's header, where no replica ever replays to; the records
 * before it end at the page's start.
 */
export function insertedEnd(insert: bigint, blockSize: bigint, segmentSize: bigint): bigint {
  const header = insert % segmentSize === LONG_HEADER ? LONG_HEADER : SHORT_HEADER;
  return insert % blockSize === header ? insert - header : insert;
}

export const replicaPositions: ReplicaPositions = {
  // The WAL inserted, not written: a commit under synchronous_commit = off is acknowledged before the WAL writer
  // writes it (up to 3 wal_writer_delay later), so the written position may lie before it.
  written: async (query) => {
    const [[insert, blockSize, segmentSize]] = await query(
      "SELECT pg_current_wal_insert_lsn()::text, current_setting('wal_block_size')::bigint::text, pg_size_bytes(current_setting('wal_segment_size'))::text",
    );
    return insertedEnd(lsnOf(String(insert)), BigInt(String(blockSize)), BigInt(String(segmentSize)));
  },
  replayed: async (query) => {
    // A promoted standby still answers its last replayed position: only a server in recovery is a replica.
    const [[recovering, replayed]] = await query('SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text');
    return recovering === true && typeof replayed === 'string' ? lsnOf(replayed) : null;
  },
  // A standby is a copy of its primary's whole cluster: the same system identifier and the same databases. Another
  // cluster's LSNs are another log's, and another database's replay says nothing of this one's rows.
  identity: async (query) => {
    const [[system, database]] = await query('SELECT (SELECT system_identifier FROM pg_control_system())::text, current_database()');
    return `database ${String(database)} of the cluster ${String(system)}`;
  },
};
