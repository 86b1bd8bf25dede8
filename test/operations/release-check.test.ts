// The release check of docs/contributing/development.md, run as written: the
// package packed, its tarball installed from the registry into a fresh ESM Nest
// app with its peers, a tiny app compiled against it with skipLibCheck off and
// run on SQLite, the bin run, the optional drivers left out. It runs in a copy of
// the package's sources, so that packing (which rebuilds dist/) leaves this
// checkout alone; node_modules is the checkout's, linked.
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from '../support/processes.js';
import { bashBlockUnder, runBash } from '../support/walkthroughs.js';

/** What `npm pack` reads: the manifest, what its prepare (the Prisma clients) and prepack (the build) steps run, the files it ships. */
const PACKAGE_SOURCES = ['package.json', 'README.md', 'tsconfig.json', 'tsconfig.build.json', 'prisma.config.ts', 'scripts', 'src', 'prisma', 'viewer'];

/**
 * The headers of the Node that runs this test, for better-sqlite3's build in the app: a Node from the
 * registry keeps them beside its binary, and the machine's npm would otherwise build against its own Node's.
 */
function nodeDir(): Record<string, string> {
  const prefix = dirname(dirname(process.execPath));
  return existsSync(join(prefix, 'include', 'node', 'common.gypi')) ? { npm_config_nodedir: prefix } : {};
}

test('the release check packs the package, installs it into a fresh Nest app, compiles that app with skipLibCheck off and runs it on SQLite, runs the bin, and leaves the optional drivers out', async () => {
  const sources = mkdtempSync(join(tmpdir(), 'agent-store-release-'));
  try {
    for (const path of PACKAGE_SOURCES) cpSync(join(ROOT, path), join(sources, path), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(sources, 'node_modules'));
    const env = { ...process.env, ...nodeDir(), PATH: `${dirname(process.execPath)}:${process.env.PATH}` };
    const result = await runBash(bashBlockUnder('docs/contributing/development.md', '## Release check'), sources, env);
    expect({ code: result.code, stderr: result.code === 0 ? '' : result.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = result.stdout.trim().split('\n');
    // The app's one line: the message appended at seq 1 and the history that holds it.
    expect(lines).toContainEqual(expect.stringMatching(/^1 \[\{"seq":1,"role":"user","content":"hello","createdAt":"\d{4}-\d\d-\d\dT[^"]+Z"\}\]$/));
    // The bin prints the store's 9 models; neither pg nor mariadb was installed.
    expect(lines.slice(-2)).toEqual(['9', 'no pg, no mariadb']);
  } finally {
    rmSync(sources, { recursive: true, force: true });
  }
}, 600_000);
