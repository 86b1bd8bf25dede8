// The release check of docs/contributing/development.md, run as written: the
// package packed (npm run tarball) with a manifest stripped of the repository's scripts, its
// tarball installed from the registry into a fresh ESM Nest app (timed and
// measured), a tiny app compiled against it with skipLibCheck off and run on
// SQLite, the HTTP API's boot failing without its optional peers, the bin run,
// the optional drivers, the HTTP-only packages and a second copy of any Prisma
// package left out. It runs in a copy of
// the package's sources, so that packing (which rebuilds dist/) leaves this
// checkout alone; node_modules is the checkout's, linked.
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from '../support/processes.js';
import { bashBlockUnder, runBash } from '../support/walkthroughs.js';

const ARTIFACTS = join(ROOT, 'test-artifacts');

/** What `npm run tarball` reads: the manifest, what its build and packing steps run, the files it ships. */
const PACKAGE_SOURCES = ['package.json', 'README.md', 'tsconfig.json', 'tsconfig.build.json', 'prisma.config.ts', 'scripts', 'src', 'prisma', 'viewer'];

/**
 * The headers of the Node that runs this test, for better-sqlite3's build in the app: a Node from the
 * registry keeps them beside its binary, and the machine's npm would otherwise build against its own Node's.
 */
function nodeDir(): Record<string, string> {
  const prefix = dirname(dirname(process.execPath));
  return existsSync(join(prefix, 'include', 'node', 'common.gypi')) ? { npm_config_nodedir: prefix } : {};
}

/** A SQLite-only app grows by this much at most: the library, its Prisma client and better-sqlite3 (about 106 MB), with room for their updates. */
const MAX_INSTALL_MB = 130;

test("the release check packs the package without its scripts, installs it into a fresh Nest app with none of the HTTP-only packages and each Prisma package once, compiles that app with skipLibCheck off and no @types/better-sqlite3 and runs it on SQLite, fails the HTTP API's boot and its subpath's import with what to install, runs the bin, and leaves the optional drivers out", async () => {
  const sources = mkdtempSync(join(tmpdir(), 'agent-store-release-'));
  try {
    for (const path of PACKAGE_SOURCES) cpSync(join(ROOT, path), join(sources, path), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(sources, 'node_modules'));
    const env = { ...process.env, ...nodeDir(), PATH: `${dirname(process.execPath)}:${process.env.PATH}` };
    const result = await runBash(bashBlockUnder('docs/contributing/development.md', '## Release check'), sources, env);
    expect({ code: result.code, stderr: result.code === 0 ? '' : result.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = result.stdout.trim().split('\n');
    expect(lines).toContain('a bare npm pack refuses');
    expect(lines).toContain('packed manifest: no scripts');
    // What installing the tarball took and added, printed for the record.
    const install = lines.find((line) => line.startsWith('install: '));
    const [, seconds, megabytes] = /^install: (\d+) s, node_modules \+(\d+) MB$/.exec(install ?? '') ?? [];
    expect({ install, seconds: Number(seconds) >= 0, megabytes: Number(megabytes) <= MAX_INSTALL_MB }).toEqual({ install, seconds: true, megabytes: true });
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(join(ARTIFACTS, 'release-check.txt'), `${install}\n`);
    process.stdout.write(`release check, the tarball into a fresh SQLite-only Nest app: ${install}\n`);
    expect(lines.slice(-8)).toEqual([
      // The app's line: the message appended at seq 1 and the history that holds it.
      expect.stringMatching(/^1 \[\{"seq":1,"role":"user","content":"hello","createdAt":"\d{4}-\d\d-\d\dT[^"]+Z"\}\]$/),
      // `http` on without its peers: the boot fails with what to install; so does importing the subpath.
      'StoreConfigurationError: StoreModule option "http" (the HTTP API) needs @nestjs/swagger, class-validator, class-transformer and @nestjs/throttler, optional peer dependencies of nestjs-agent-store: npm install @nestjs/swagger class-validator class-transformer @nestjs/throttler',
      'StoreConfigurationError: nestjs-agent-store/http needs @nestjs/swagger, class-validator and class-transformer, optional peer dependencies of nestjs-agent-store: npm install @nestjs/swagger class-validator class-transformer',
      // The bin prints the store's 9 models.
      '9',
      'no pg, no mariadb',
      'no HTTP-only packages',
      'no Prisma package twice',
      'no @types/better-sqlite3',
    ]);
  } finally {
    rmSync(sources, { recursive: true, force: true });
  }
}, 600_000);
