// The integration contract (nestjs-agent-store/integration) on every backend, as a binding uses it:
// its own statements on its own table (LangGraph's pending writes here), all or nothing, in one
// snapshot, scoped by tenant, failing with the store's typed errors.
import { randomUUID } from 'node:crypto';
import { StoreConfigurationError, StoreConflictError, StoreDatabaseError, StoreValidationError } from '../../index.js';
import type { IntegrationReads, IntegrationTransaction, ReadPlan, SqlStatement } from '../../contract/index.js';
import type { Suite } from '../kit.js';

const COLUMNS = 'lane, checkpoint_id, task_id, idx, thread_key, tenant_id, task_path, channel_name, payload_type, payload';

/**
 * The integration contract (nestjs-agent-store/integration) as a binding uses it: its own statements on its own
 * table, all or nothing, in one snapshot, scoped by tenant, failing with the store's typed errors.
 */
export const integrationStore: Suite = ({ store, opener: backend, test, expect }) => {
  /** A row of agent_lg_write in the lane `lane`. */
  const row = (lane: string, idx: number, bytes = new Uint8Array([idx, 0, 255])): SqlStatement => ({
    text: `INSERT INTO agent_lg_write (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    args: [lane, 'c', 't', idx, `thread-${lane}`, null, 'path', 'channel', 'bytes', bytes],
  });
  const idxs = (tx: IntegrationReads, lane: string) =>
    tx.query('SELECT idx, payload FROM agent_lg_write WHERE lane = ? ORDER BY idx', [lane]).then((rows) => rows.map(([idx]) => Number(idx)));
  const read = (lane: string) => store.integration.read((tx) => idxs(tx, lane));

  test('names its database, as Prisma names it, and whether it writes one transaction at a time', () => {
    const { provider, serialWrites } = store.integration.database;
    expect(provider).toBe(backend.label.startsWith('SQLite') ? 'sqlite' : backend.label.includes('PostgreSQL') ? 'postgresql' : 'mysql');
    expect(serialWrites).toBe(provider === 'sqlite');
    expect(store.integration.database).toBe(store.integration.forTenant('acme').database);
  });

  test('writeAll and write are all or nothing; read and readPlan see what committed, bytes exact', async () => {
    const lane = randomUUID();
    await store.integration.writeAll([row(lane, 1), row(lane, 2, new Uint8Array([9, 8, 7, 0]).subarray(1))]);
    expect(await read(lane)).toEqual([1, 2]);
    const bytes = await store.integration.read((tx) => tx.query('SELECT payload FROM agent_lg_write WHERE lane = ? AND idx = 2', [lane]));
    expect([...new Uint8Array(bytes[0][0] as Uint8Array)]).toEqual([8, 7, 0]);

    // The second row's key is taken: the first is not kept, and the error is the store's.
    await expect(store.integration.writeAll([row(lane, 3), row(lane, 1)])).rejects.toThrow(StoreConflictError);
    await expect(
      store.integration.write(async (tx) => {
        await tx.execute(row(lane, 4).text, row(lane, 4).args);
        throw new StoreValidationError('the binding refused');
      }),
    ).rejects.toThrow('the binding refused');
    expect(await read(lane)).toEqual([1, 2]);

    function* plan(): ReadPlan<number[]> {
      const first = yield { text: 'SELECT COUNT(*) FROM agent_lg_write WHERE lane = ?', args: [lane] };
      const rest = yield { text: 'SELECT idx FROM agent_lg_write WHERE lane = ? AND idx > ? ORDER BY idx', args: [lane, 1] };
      return [Number(first[0][0]), ...rest.map(([idx]) => Number(idx))];
    }
    expect(await store.integration.readPlan(plan)).toEqual([2, 2]);
  });

  test('a write sees its own statements; a snapshot write runs them too', async () => {
    const lane = randomUUID();
    const seen = await store.integration.write(async (tx) => {
      await tx.execute(row(lane, 5).text, row(lane, 5).args);
      return idxs(tx, lane);
    });
    expect(seen).toEqual([5]);
    await store.integration.write((tx) => tx.execute('DELETE FROM agent_lg_write WHERE lane = ?', [lane]), { snapshot: true });
    expect(await read(lane)).toEqual([]);
  });

  test('a statement the database refuses is a StoreDatabaseError, and changes nothing', async () => {
    const lane = randomUUID();
    await expect(store.integration.writeAll([row(lane, 1), { text: 'INSERT INTO no_such_table VALUES (?)', args: [1] }])).rejects.toThrow(StoreDatabaseError);
    expect(await read(lane)).toEqual([]);
  });

  test('a transaction refuses statements once its work has returned; a read has no writes', async () => {
    const lane = randomUUID();
    let kept: IntegrationTransaction | undefined;
    await store.integration.write(async (tx) => {
      kept = tx;
    });
    await expect(kept!.execute(row(lane, 1).text, row(lane, 1).args)).rejects.toThrow(StoreConfigurationError);
    let reads: IntegrationReads | undefined;
    await store.integration.read(async (tx) => {
      reads = tx;
      expect('execute' in tx).toBe(false);
    });
    await expect(reads!.query('SELECT 1', [])).rejects.toThrow(StoreConfigurationError);
    expect(await read(lane)).toEqual([]);
  });

  test('forTenant checks the tenant id as the store does, and scopes once', () => {
    const scoped = store.integration.forTenant('acme');
    expect(scoped.tenantId).toBe('acme');
    expect(store.integration.tenantId).toBeUndefined();
    expect(() => store.integration.forTenant('')).toThrow(StoreValidationError);
    expect(() => store.integration.forTenant('a\u0000b')).toThrow(StoreValidationError);
    expect(() => scoped.forTenant('globex')).toThrow(StoreConfigurationError);
  });

  test('withTransaction takes only a transaction client of the store', () => {
    expect(() => store.integration.withTransaction({})).toThrow(StoreConfigurationError);
    expect(() => store.integration.withTransaction(null as unknown as object)).toThrow(StoreConfigurationError);
  });
};
