// nestjs-cls's transactional plugin with its Prisma adapter, as a Nest app wires
// it (test/fixtures/nestjs-cls-app.ts, a process of its own): store calls made
// in a @Transactional() method run in its transaction, and the plugin's
// propagation modes decide which transaction that is.
import { Test } from '@nestjs/testing';
import { StoreConfigurationError, StoreModule, type StoreModuleOptions } from '../../src/index.js';
import { eachDatabase, SQLITE, tempSqliteUrl } from '../support/databases.js';
import { appClient, migratedUrl } from '../support/openers.js';
import { runFixture } from '../support/processes.js';

eachDatabase((database) => {
  let report: Record<string, { seen?: unknown; error?: string }>;

  beforeAll(async () => {
    const url = await migratedUrl(database);
    const prisma = await appClient(database, url);
    try {
      await prisma.$executeRawUnsafe('CREATE TABLE app_order (id VARCHAR(64) PRIMARY KEY, status VARCHAR(32) NOT NULL)');
      await prisma.$executeRawUnsafe("INSERT INTO app_order (id, status) VALUES ('thrown', 'new'), ('paid', 'new')");
    } finally {
      await prisma.$disconnect();
    }
    const run = await runFixture('nestjs-cls-app.ts', [database.provider, url], { esmOnly: true });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    report = JSON.parse(run.stdout);
  });
  const seen = (scenario: string) => report[scenario];

  it('a @Transactional() method that throws leaves neither its own writes nor the store writes', () => {
    expect(seen('thrown')).toEqual({ seen: { outcome: 'rolled back', status: 'new', history: [], subsessions: [] } });
  });

  it('the same method without the throw commits both', () => {
    expect(seen('paid')).toEqual({ seen: { status: 'paid', history: ['paid'], subsessions: ['paid/receipt'] } });
  });

  it('reads in the transaction see its writes', () => {
    expect(seen('readsInside')).toEqual({ seen: { history: ['one', 'two'], count: 2 } });
  });

  it('outside a transaction, a call runs on its own and commits at once', () => {
    expect(seen('outside')).toEqual({ seen: { active: false, history: ['alone'] } });
  });

  it('Nested: a failed inner unit rolls back alone, the outer one commits', () => {
    expect(seen('nested')).toEqual({ seen: { history: ['outer', 'outer again'] } });
  });

  it('Supports and Mandatory join the open transaction, and roll back with it', () => {
    expect(seen('supportsAndMandatory')).toEqual({ seen: { outcome: 'rolled back', inside: ['supports', 'mandatory'], after: [] } });
  });

  // SQLite has one writer: a unit of work outside the open one would wait for its lock (the fixture skips them).
  if (database.provider !== 'sqlite') {
    it('RequiresNew: the inner unit commits on its own, whatever the outer one does', () => {
      expect(seen('requiresNew')).toEqual({ seen: { outcome: 'rolled back', outer: [], inner: ['inner'] } });
    });

    it('NotSupported: the call runs outside the transaction, in one of its own', () => {
      expect(seen('notSupported')).toEqual({ seen: { outcome: 'rolled back', active: false, outer: [], inner: ['outside'] } });
    });
  }
});

describe('transactionHost option', () => {
  const compile = (options: StoreModuleOptions) => Test.createTestingModule({ imports: [StoreModule.forRoot(options)] }).compile();

  it('needs the application’s own client', async () => {
    const host = { isTransactionActive: () => false, tx: {} };
    await expect(compile({ url: tempSqliteUrl(), transactionHost: host })).rejects.toThrow(StoreConfigurationError);
    await expect(compile({ url: tempSqliteUrl(), transactionHost: host })).rejects.toThrow(/needs "prisma"/);
  });

  it('must be a TransactionHost', async () => {
    const prisma = await appClient(SQLITE, tempSqliteUrl());
    try {
      await expect(compile({ prisma, transactionHost: { tx: {} } as never })).rejects.toThrow(/must be the TransactionHost of @nestjs-cls\/transactional/);
    } finally {
      await prisma.$disconnect();
    }
  });
});
