// A server database's driver is an optional peer dependency: a missing one is a
// configuration error that names what to install, and anything else passes through.
import { optionalDriver } from '../../src/engine/optional-driver.js';
import { StoreConfigurationError } from '../../src/index.js';

describe('optionalDriver', () => {
  test('a package that is not installed is a StoreConfigurationError naming the packages to install', async () => {
    const error = await optionalDriver('PostgreSQL', ['agent-store-no-such-driver', 'pg'], () => import('agent-store-no-such-driver' as string)).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(StoreConfigurationError);
    expect((error as Error).message).toBe('PostgreSQL urls need the packages agent-store-no-such-driver and pg: npm install agent-store-no-such-driver pg');
    expect(((error as Error).cause as { code?: string }).code).toMatch(/MODULE_NOT_FOUND/);
  });

  test('a missing module the driver itself imports is not mistaken for the driver', async () => {
    const inner = Object.assign(new Error("Cannot find package 'something-else' imported from pg"), { code: 'ERR_MODULE_NOT_FOUND' });
    await expect(optionalDriver('PostgreSQL', ['@prisma/adapter-pg', 'pg'], () => Promise.reject(inner))).rejects.toBe(inner);
  });

  test('any other failure of the driver passes through unchanged', async () => {
    const broken = new TypeError('the driver failed to load');
    await expect(optionalDriver('MySQL/MariaDB', ['@prisma/adapter-mariadb', 'mariadb'], () => Promise.reject(broken))).rejects.toBe(broken);
  });

  test('an installed driver loads', async () => {
    const loaded = await optionalDriver('PostgreSQL', ['@prisma/adapter-pg', 'pg'], () => import('@prisma/adapter-pg'));
    expect(typeof loaded.PrismaPg).toBe('function');
  });
});
