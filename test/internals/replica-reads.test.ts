// Which server a read that tolerates a replica runs on (src/engine/replica-reads.ts),
// with positions the test controls: the questions asked of the primary and of the
// replicas, and the answers' use. The behaviour on real servers is in
// test/operations/postgresql-replicas.test.ts.
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { StoreDatabase } from '../../src/engine/database.js';
import { ReplicaReads } from '../../src/engine/replica-reads.js';
import { insertedEnd, lsnOf } from '../../src/databases/postgresql/replica-positions.js';
import type { Query, ReplicaPositions } from '../../src/engine/provider-kit.js';
import { StoreBusyError, StoreConflictError, StoreDatabaseError, StoreNotFoundError, StoreUnavailableError } from '../../src/store.errors.js';

/** A server whose position (and database) the test sets; `answer` may be held back to let the test interleave. */
function server(position: bigint | null | Error) {
  const state = { position, asked: 0, hold: undefined as Promise<void> | undefined, identity: 'agents of cluster 1' };
  // Answers the position it has when asked, however long `hold` keeps the answer back; `asked` counts the positions asked.
  const query: Query = async (statement) => {
    if (statement === 'identity') return [[state.identity]];
    state.asked++;
    const answer = state.position;
    await state.hold;
    if (answer instanceof Error) throw answer;
    return [[answer]];
  };
  return Object.assign(state, { query });
}

// The kit's positions, read from the test's servers.
const positions: ReplicaPositions = {
  written: async (query) => (await query('written'))[0][0] as bigint,
  replayed: async (query) => (await query('replayed'))[0][0] as bigint | null,
  identity: async (query) => (await query('identity'))[0][0] as string,
};

const logger = new Logger('test');

function setUp(maxLagMs = 10_000) {
  const primary = server(100n);
  const replicas = [server(100n), server(100n)];
  const reads = new ReplicaReads(
    primary.query,
    replicas.map((replica, i) => ({ name: `replica ${i}`, db: { i } as unknown as StoreDatabase, query: replica.query })),
    positions,
    maxLagMs,
    logger,
  );
  const picked = async () => ((await reads.pick())?.db as unknown as { i: number } | undefined)?.i;
  return { primary, replicas, reads, picked };
}

beforeEach(() => {
  jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
});
afterEach(() => {
  jest.restoreAllMocks();
  jest.useRealTimers();
});

test('the replicas take turns; one that has not replayed the primary position is passed over', async () => {
  const { primary, replicas, picked } = setUp();
  expect([await picked(), await picked(), await picked()]).toEqual([0, 1, 0]);
  replicas[0].position = 99n;
  primary.position = 101n;
  // No write since: the primary's last answer (100) still holds, and replica 0 was known to have it.
  expect([await picked(), await picked()]).toEqual([1, 0]);
  expect(primary.asked).toBe(1);
  expect(replicas[0].asked).toBe(1);
});

test('a replica known to lack the position is asked again, and passed over while it lacks it', async () => {
  const { primary, replicas, reads, picked } = setUp();
  replicas[0].position = 99n;
  reads.wrote();
  // Replica 0's turn, then replica 1's (known to have it: not asked), then replica 0's again.
  expect([await picked(), await picked(), await picked()]).toEqual([1, 1, 1]);
  expect(replicas.map((replica) => replica.asked)).toEqual([2, 1]);
  expect(primary.asked).toBe(1);
});

test('a write that settles while the primary is being asked makes the next read ask again: the answer may predate the write', async () => {
  const { primary, reads, picked } = setUp();
  let release!: () => void;
  primary.hold = new Promise((resolve) => (release = resolve));
  const first = picked();
  // The write commits (at 120) and settles while the question asked before it (answered 100) is still out.
  primary.position = 120n;
  reads.wrote();
  const second = picked();
  release();
  primary.hold = undefined;
  // The first read began before the write: a replica at 100 may serve it. The second must not be.
  expect(await first).toBe(0);
  expect(await second).toBeUndefined();
  expect(primary.asked).toBe(2);
});

test('the reads waiting on one replica share one question; concurrent reads after no write share the primary answer', async () => {
  const { primary, replicas, picked } = setUp();
  expect(await Promise.all([picked(), picked(), picked(), picked()])).toEqual([0, 1, 0, 1]);
  expect(primary.asked).toBe(1);
  expect(replicas.map((replica) => replica.asked)).toEqual([1, 1]);
});

test('the primary is asked again when its answer is older than half the lag bound: a replica that stopped replaying is passed over', async () => {
  jest.useFakeTimers({ now: 0, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
  const { primary, replicas, picked } = setUp(1_000);
  expect(await picked()).toBe(0);
  primary.position = 200n;
  jest.advanceTimersByTime(400);
  expect(await picked()).toBe(1);
  expect(primary.asked).toBe(1);
  jest.advanceTimersByTime(200);
  expect(await picked()).toBeUndefined();
  expect(primary.asked).toBe(2);
  replicas[0].position = 200n;
  expect([await picked(), await picked()]).toEqual([0, 0]);
});

test("the lag bound holds when the system clock is set back: time is the process's own, not the wall clock", async () => {
  jest.useFakeTimers({ now: 10 * 3_600_000, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
  const { primary, replicas, picked } = setUp(1_000);
  expect(await picked()).toBe(0);
  primary.position = 200n;
  // An hour back, then 600 ms on: the primary's answer is 600 ms old, past half the bound.
  jest.setSystemTime(9 * 3_600_000);
  jest.advanceTimersByTime(600);
  replicas[1].position = 100n;
  expect(await picked()).toBeUndefined();
  expect(primary.asked).toBe(2);
});

test('a replica that fails to answer, or is not in recovery, rests for 5 s and is said once; then it is asked again', async () => {
  jest.useFakeTimers({ now: 0, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
  const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  const { replicas, picked } = setUp(60_000);
  replicas[0].position = new Error('connect ECONNREFUSED 127.0.0.1:5433 for postgresql://app:hunter2@standby/agents');
  replicas[1].position = null;
  expect(await picked()).toBeUndefined();
  expect(await picked()).toBeUndefined();
  expect(replicas.map((replica) => replica.asked)).toEqual([1, 1]);
  const said = warn.mock.calls.map((call) => String(call[0]));
  expect(said).toHaveLength(2);
  expect(said[0]).toContain('replica 0 takes no reads');
  expect(said[0]).not.toContain('hunter2');
  expect(said[1]).toContain('it is not in recovery');
  replicas[0].position = 100n;
  jest.advanceTimersByTime(5_001);
  expect(await picked()).toBe(0);
});

test('a replica that does not answer within 1 s rests', async () => {
  jest.useFakeTimers({ now: 0, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
  const { replicas, picked } = setUp();
  replicas[0].hold = new Promise(() => undefined);
  const read = picked();
  await jest.advanceTimersByTimeAsync(1_000);
  expect(await read).toBe(1);
  replicas[0].hold = undefined;
  expect(await picked()).toBe(1);
  expect(replicas[0].asked).toBe(1);
});

test('when the primary cannot say its position, the read goes to the primary, and the next one asks it again', async () => {
  const { primary, picked } = setUp();
  primary.position = new Error('connection refused');
  expect(await picked()).toBeUndefined();
  primary.position = 100n;
  expect(await picked()).toBeDefined();
  expect(primary.asked).toBe(2);
});

test('a read that failed on a replica for a failure of the request (a session or a cursor it does not have yet) does not rest it', async () => {
  const { reads } = setUp();
  const replica = (await reads.pick())!;
  reads.failed(replica, new StoreNotFoundError('session x not found'));
  reads.failed(replica, new StoreConflictError('the log of x was compacted after this cursor was handed out'));
  expect([(await reads.pick())?.name, (await reads.pick())?.name]).toEqual(['replica 1', 'replica 0']);
});

test.each([
  ['no connection', new StoreUnavailableError('the database is unavailable: connect ECONNREFUSED')],
  ['a privilege its login lacks', new StoreDatabaseError('the database failed: permission denied for table agent_thread')],
  ['conflicts with its replay', new StoreBusyError('the database stayed busy with conflicting writes: canceling statement due to conflict with recovery')],
])('a read that failed on a replica for a failure of the database (%s) rests it, said once', async (_name, failure) => {
  const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  const { replicas, reads } = setUp();
  const replica = (await reads.pick())!;
  reads.failed(replica, failure);
  reads.failed(replica, failure);
  expect([(await reads.pick())?.name, (await reads.pick())?.name]).toEqual(['replica 1', 'replica 1']);
  expect(replicas[0].asked).toBe(1);
  expect(warn.mock.calls.map((call) => String(call[0]))).toEqual([`replica replica 0 takes no reads (asked again every 5 s): ${failure.message}`]);
});

test("PostgreSQL's LSNs compare as their position in the log: the high 32 bits first", () => {
  expect(lsnOf('0/3000028')).toBe(0x3000028n);
  expect(lsnOf('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
  expect(lsnOf('1/0') > lsnOf('0/FFFFFFFF')).toBe(true);
});

test("the primary's insert position at a page that holds no record yet is the page's start, where a replica replays to", () => {
  const page = 8192n;
  const segment = 16n * 1024n * 1024n;
  // After a short header (the page's 24 bytes), after a segment's long one (40), and a record that ends 40 bytes into a page.
  expect(insertedEnd(3n * page + 24n, page, segment)).toBe(3n * page);
  expect(insertedEnd(segment + 40n, page, segment)).toBe(segment);
  expect(insertedEnd(3n * page + 40n, page, segment)).toBe(3n * page + 40n);
  expect(insertedEnd(3n * page + 1000n, page, segment)).toBe(3n * page + 1000n);
});

test("a replica that holds another database than the primary's (another cluster's, or another database of its cluster) takes no reads", async () => {
  jest.useFakeTimers({ now: 0, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
  const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  const { replicas, picked } = setUp(60_000);
  replicas[0].identity = 'agents of cluster 2';
  replicas[1].identity = 'agents_staging of cluster 1';
  expect([await picked(), await picked()]).toEqual([undefined, undefined]);
  const said = warn.mock.calls.map((call) => String(call[0]));
  expect(said).toHaveLength(2);
  expect(said[0]).toContain('replica 0 takes no reads (asked again every 5 s): it is a standby of another database: it holds the agents of cluster 2');
  expect(said[1]).toContain('replica 1 takes no reads');
  // Asked again after its rest: the name now leads to a standby of the primary's database.
  replicas[0].identity = 'agents of cluster 1';
  jest.advanceTimersByTime(5_001);
  expect(await picked()).toBe(0);
});

test('a read on a replica runs as long as the replica answers, and fails once it does not: it rests, and no timer is left', async () => {
  jest.useFakeTimers({ now: 0, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
  const { replicas, reads } = setUp(60_000);
  const replica = (await reads.pick())!;
  let finish!: (rows: string[]) => void;
  const slow = reads.watched(replica, new Promise<string[]>((resolve) => (finish = resolve)));
  await jest.advanceTimersByTimeAsync(3_500);
  finish(['a']);
  expect(await slow).toEqual(['a']);
  expect(replicas[0].asked).toBe(1 + 3);
  expect(jest.getTimerCount()).toBe(0);
  // It drops off the network: the read and the question of its position get no answer.
  replicas[0].hold = new Promise(() => undefined);
  const hung = reads.watched(replica, new Promise<string[]>(() => undefined));
  const failure = expect(hung).rejects.toThrow(StoreUnavailableError);
  await jest.advanceTimersByTimeAsync(2_000);
  await failure;
  expect(jest.getTimerCount()).toBe(0);
  expect((await reads.pick())?.name).toBe('replica 1');
});

test('a question in flight when the store closes its pools, which then fails, is no warning', async () => {
  const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  const { replicas, reads } = setUp();
  let release!: () => void;
  replicas[0].hold = new Promise((resolve) => (release = resolve));
  replicas[0].position = new Error('Cannot use a pool after calling end on the pool');
  replicas[1].position = 99n;
  const read = reads.pick();
  reads.close();
  release();
  expect(await read).toBeUndefined();
  expect(warn).not.toHaveBeenCalled();
});
