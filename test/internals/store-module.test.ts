// StoreModule: registration, options validation, migrations at boot, ownership of the client.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { Inject, Injectable, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { Test } from '@nestjs/testing';
import { PrismaClient } from '../../src/generated/sqlite/client.js';
import { migrate } from '../../src/engine/open-database.js';
import { KITS } from '../../src/databases/index.js';
import { resolveOptions } from '../../src/store.options.js';
import {
  MessageStore,
  SerializedSqliteAdapterFactory,
  StoreConfigurationError,
  StoreDatabaseError,
  StoreModule,
  type StoreModuleOptions,
} from '../../src/index.js';
import { StoreDatabase } from '../../src/engine/database.js';
import { runFixture } from '../support/processes.js';
import { tempSqliteUrl } from '../support/databases.js';

const boot = async (imports: unknown[]) => {
  const app = await Test.createTestingModule({ imports: imports as never[] }).compile();
  await app.init();
  return app;
};

test('forRoot() with no options opens ./data/agent-store.db and migrates it at boot', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'agent-store-default-'));
  const run = await runFixture('boot-default.ts', [], { cwd });
  expect({ code: run.code, stdout: run.stdout.trim(), stderr: run.stderr }).toEqual({ code: 0, stdout: '1', stderr: '' });
  expect(existsSync(join(cwd, 'data', 'agent-store.db'))).toBe(true);
});

test('the embedded default migrates without being asked; an explicit url only when migrate is true', () => {
  expect(resolveOptions({})).toMatchObject({ url: 'file:./data/agent-store.db', kit: KITS.sqlite, migrate: true });
  expect(resolveOptions({ url: 'file:x.db' })).toMatchObject({ migrate: false });
  expect(resolveOptions({ url: 'postgresql://u:p@h:5432/d' })).toMatchObject({ kit: KITS.postgresql, migrate: false });
  expect(resolveOptions({ url: 'mysql://u:p@h:3306/d', migrate: true })).toMatchObject({ kit: KITS.mysql, migrate: true });
});

test('an explicit url without migrate leaves the schema alone, and the store says so with a typed error', async () => {
  const app = await boot([StoreModule.forRoot({ url: tempSqliteUrl() })]);
  await expect(app.get<MessageStore>(MessageStore).append('t', { role: 'user', content: 'a' })).rejects.toThrow(StoreDatabaseError);
  await app.close();
});

test('forRootAsync takes its options from ConfigService', async () => {
  const url = tempSqliteUrl();
  const app = await boot([
    StoreModule.forRootAsync({
      imports: [ConfigModule.forRoot({ ignoreEnvFile: true, load: [() => ({ STORE_URL: url })] })],
      inject: [ConfigService],
      useFactory: (config: ConfigService): StoreModuleOptions => ({ url: config.getOrThrow<string>('STORE_URL'), migrate: true }),
    }),
  ]);
  const messages = app.get<MessageStore>(MessageStore);
  await messages.append('async', { role: 'user', content: 'configured' });
  expect((await messages.getHistory('async'))[0].content).toBe('configured');
  await app.close();
});

test('isGlobal makes MessageStore injectable in modules that do not import StoreModule', async () => {
  @Injectable()
  class Agent {
    constructor(@Inject(MessageStore) readonly messages: MessageStore) {}
  }
  @Module({ providers: [Agent], exports: [Agent] })
  class FeatureModule {}

  const app = await boot([StoreModule.forRoot({ url: tempSqliteUrl(), migrate: true, isGlobal: true }), FeatureModule]);
  const agent = app.get(Agent);
  expect((await agent.messages.append('g', { role: 'user', content: 'x' })).seq).toBe(1);
  await app.close();
});

test('two registrations in one app each serve the module that imports them', async () => {
  @Injectable()
  class Agent {
    constructor(@Inject(MessageStore) readonly messages: MessageStore) {}
  }
  const feature = (url: string) => {
    @Module({ imports: [StoreModule.forRoot({ url, migrate: true })], providers: [Agent], exports: [Agent] })
    class FeatureModule {}
    return FeatureModule;
  };
  const [first, second] = [feature(tempSqliteUrl()), feature(tempSqliteUrl())];
  const app = await boot([first, second]);
  await app.select(first).get(Agent, { strict: true }).messages.append('t', { role: 'user', content: 'first' });
  expect(await app.select(second).get(Agent, { strict: true }).messages.count('t')).toBe(0);
  expect((await app.select(first).get(Agent, { strict: true }).messages.getHistory('t')).map((m) => m.content)).toEqual(['first']);
  await app.close();
});

describe('options are validated when the module starts', () => {
  const cases: [string, StoreModuleOptions, RegExp][] = [
    [
      'an unknown scheme',
      { url: 'redis://localhost:6379' },
      /must start with file: \(SQLite\), postgresql:\/\/ \(PostgreSQL\) or mysql:\/\/ \(MySQL\/MariaDB\)/,
    ],
    ['an empty SQLite path', { url: 'file:' }, /needs a path/],
    ['a url that is not a string', { url: 42 as never }, /must be a connection string/],
    ['a url without a host', { url: 'postgresql://' }, /cannot parse/],
    ['both url and prisma', { url: 'file:a.db', prisma: {} }, /either "url" or "prisma"/],
    ['a prisma object that is not a client', { prisma: {} }, /PrismaClient whose schema includes/],
    ['an unknown option', { migrations: true } as never, /unknown StoreModule option "migrations"/],
    ['a pool of zero connections', { url: 'postgresql://u@h/d', pool: { max: 0 } }, /pool.max/],
    ['migrate that is not a boolean', { migrate: 'yes' as never }, /"migrate" must be true or false/],
    ['an in-memory SQLite database', { url: 'file::memory:', migrate: true }, /in-memory SQLite database/],
    ['an unknown pool option', { url: 'postgresql://u@h/d', pool: { maxConnections: 50 } as never }, /unknown StoreModule option "pool.maxConnections"/],
    ['a pool that is not an object', { url: 'postgresql://u@h/d', pool: 5 as never }, /"pool" must be an object/],
    ['failover that is not a list', { url: 'mysql://u@h/d', failover: 'mysql://u@h2/d' as never }, /"failover" must be an array of urls/],
    ['failover urls of another database', { url: 'mysql://u@h/d', failover: ['postgresql://u@h2/d'] }, /same database as "url" \(mysql:\/\/…\)/],
    [
      'failover for a database that has none',
      { url: 'file:./a.db', failover: ['file:./b.db'] },
      /takes MySQL\/MariaDB urls \(a Galera cluster's nodes\) or PostgreSQL urls \(a primary and its standbys\); SQLite urls have none/,
    ],
    ['a failover url that is not a url', { url: 'mysql://u@h/d', failover: [42 as never] }, /must be a connection string/],
    ['failover with your own client', { prisma: {}, failover: ['mysql://u@h2/d'] }, /"failover" is for the store's own pools/],
    ['replicas that are not a list', { url: 'postgresql://u@h/d', replicas: 'postgresql://u@r/d' as never }, /"replicas" must be an array of urls/],
    ['replicas of another database', { url: 'postgresql://u@h/d', replicas: ['mysql://u@r/d'] }, /same database as "url" \(postgresql:\/\/…\)/],
    ['replicas for a database that has none', { url: 'mysql://u@h/d', replicas: ['mysql://u@r/d'] }, /"replicas" takes PostgreSQL urls/],
    ['replicas of SQLite', { url: 'file:a.db', replicas: ['file:b.db'] }, /"replicas" takes PostgreSQL urls/],
    [
      'the primary as its own replica',
      { url: 'postgresql://u:hunter2@h/d', replicas: ['postgresql://u:hunter2@h/d'] },
      /"replicas" lists "url" itself \(postgresql:\/\/u:\*\*\*@h\/d\)/,
    ],
    [
      'a replica twice',
      { url: 'postgresql://u@h/d', replicas: ['postgresql://u@r/d', 'postgresql://u@r2/d', 'postgresql://u@r/d'] },
      /"replicas" lists postgresql:\/\/u@r\/d twice/,
    ],
    ['replicas with your own client', { prisma: {}, replicas: ['postgresql://u@r/d'] }, /"replicas" is for the store's own pools/],
    ['a replica lag bound with your own client', { prisma: {}, maxReplicaLagMs: 1000 }, /"maxReplicaLagMs" is for the store's own pools/],
    [
      'a replica lag bound of zero',
      { url: 'postgresql://u@h/d', replicas: ['postgresql://u@r/d'], maxReplicaLagMs: 0 },
      /"maxReplicaLagMs" must be a positive integer/,
    ],
    [
      'an unknown sqliteVacuum',
      { url: 'file:./a.db', sqliteVacuum: 'never' as never },
      /"sqliteVacuum" must be 'every-erasing-call' or 'bulk-jobs', got "never"/,
    ],
    [
      'an sqliteVacuum that is not a string, with your own client',
      { prisma: {}, sqliteVacuum: true as never },
      /"sqliteVacuum" must be 'every-erasing-call' or 'bulk-jobs', got true/,
    ],
    [
      'an sqliteVacuum that JSON cannot write',
      { url: 'file:./a.db', sqliteVacuum: 1n as never },
      /"sqliteVacuum" must be 'every-erasing-call' or 'bulk-jobs', got 1/,
    ],
    [
      'a replica lag bound without replicas',
      { url: 'postgresql://u@h/d', maxReplicaLagMs: 1000 },
      /"maxReplicaLagMs" bounds the lag of "replicas", and none are given/,
    ],
  ];
  test.each(cases)('%s fails with a StoreConfigurationError that says what to fix', async (_name, options, message) => {
    const failure = boot([StoreModule.forRoot(options)]);
    await expect(failure).rejects.toThrow(StoreConfigurationError);
    await expect(failure).rejects.toThrow(message);
  });

  test('a password in a bad url is never echoed', () => {
    expect(() => resolveOptions({ url: 'postgres://admin:s3cret@' })).toThrow(/admin:\*\*\*@/);
    expect(() => resolveOptions({ url: 'postgres://admin:s3cret@' })).not.toThrow(/s3cret/);
  });
});

describe('the client', () => {
  test('the module disconnects the client it created when the app shuts down', async () => {
    const app = await boot([StoreModule.forRoot({ url: tempSqliteUrl(), migrate: true })]);
    const disconnect = jest.spyOn(app.get(StoreDatabase).client, '$disconnect');
    await app.close();
    expect(disconnect).toHaveBeenCalledTimes(1);
  });

  test("a caller's own client is used, never migrated by the module, and left connected", async () => {
    const url = tempSqliteUrl();
    const factory = new SerializedSqliteAdapterFactory(url);
    await migrate(factory, KITS.sqlite);
    const prisma = new PrismaClient({ adapter: factory });
    const disconnect = jest.spyOn(prisma, '$disconnect');

    await expect(boot([StoreModule.forRoot({ prisma, migrate: true })])).rejects.toThrow(/cannot migrate your own PrismaClient/);
    const app = await boot([StoreModule.forRoot({ prisma })]);
    await app.get<MessageStore>(MessageStore).append('own', { role: 'user', content: 'mine' });
    await app.close();

    expect(disconnect).not.toHaveBeenCalled();
    expect(await prisma.agentMessage.count({ where: { threadId: 'own' } })).toBe(1);
    await prisma.$disconnect();
  });
});

test('a SQLite file whose directory cannot be created fails the boot with a configuration error', async () => {
  const failure = boot([StoreModule.forRoot({ url: 'file:/proc/no-such-dir/store.db', migrate: true })]);
  await expect(failure).rejects.toThrow(StoreConfigurationError);
  await expect(failure).rejects.toThrow(/cannot create \/proc\/no-such-dir/);
});
