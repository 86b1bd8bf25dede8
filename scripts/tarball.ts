// `npm run tarball [destination]`: the package's tarball, as it is published.
// npm packs the repository's package.json as it is, with `prepare` (which an
// install lists among the scripts to approve) and the development scripts,
// dependencies and allowScripts. So the files npm would pack are copied to a
// staging folder beside a manifest without those, and packed there, with no
// script: the repository's own files are never rewritten. Publish the tarball
// it prints (`npm publish <tarball>` reads the manifest inside it); a bare
// `npm pack` or `npm publish` in the repository refuses (its prepack).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
/** What only the repository uses. */
const REPOSITORY_ONLY = ['scripts', 'devDependencies', 'allowScripts'];

const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

// npm runs a script in the package's root: a relative destination is the caller's, whose folder npm passes as INIT_CWD.
const destination = resolve(process.env.INIT_CWD ?? process.cwd(), process.argv[2] ?? ROOT);
const listed = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT)) as [{ files: { path: string }[] }];
const staging = mkdtempSync(join(tmpdir(), 'agent-store-tarball-'));
try {
  for (const { path } of listed[0].files) {
    mkdirSync(dirname(join(staging, path)), { recursive: true });
    cpSync(join(ROOT, path), join(staging, path));
  }
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  for (const field of REPOSITORY_ONLY) delete manifest[field];
  writeFileSync(join(staging, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  mkdirSync(destination, { recursive: true });
  const [packed] = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', destination], staging)) as [{ filename: string }];
  console.log(join(destination, packed.filename));
} finally {
  rmSync(staging, { recursive: true, force: true });
}
