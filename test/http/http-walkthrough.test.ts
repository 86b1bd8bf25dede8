// The docs' HTTP walkthrough (docs/guide/http-api.md), run as written against the demo
// app (`npm start`'s entry point) on a fresh embedded SQLite file: if the page drifts, this fails.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../support/processes.js';
import { bashBlockUnder, runBash } from '../support/walkthroughs.js';

const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');

/** Starts the demo on a free port in `cwd`; resolves with its base url once it listens. */
function startDemo(cwd: string): Promise<{ child: ChildProcess; base: string; output: () => string }> {
  const child = spawn(TSX, ['--tsconfig', join(ROOT, 'tsconfig.json'), join(ROOT, 'demo', 'main.ts')], {
    cwd,
    env: { ...withoutKey(process.env), PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: tsx runs node as a child, and both must stop.
    detached: true,
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      // Its last start-up line says how to stop it.
      const listening = /HTTP API +(http:\/\/localhost:\d+)\/agent-store/.exec(output);
      if (listening && output.includes('Ctrl+C stops it.')) resolve({ child, base: listening[1], output: () => output });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`the demo exited with ${code} before listening:\n${output}`)));
  });
}

/** The demo's own development key, whatever this shell sets. */
function withoutKey(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { AGENT_STORE_API_KEY: _ignored, ...rest } = env;
  return rest;
}

test("npm start prints where to go (the viewer, the agent's session, the API, its key, a curl, how to stop) and no route log, serves /docs and the session viewer, and the HTTP walkthrough of the docs succeeds against it as written", async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'agent-store-demo-'));
  const demo = await startDemo(cwd);
  try {
    const printed = demo.output().trim().split('\n');
    expect(printed[0]).toMatch(/^nestjs-agent-store demo: the store on embedded SQLite/);
    expect(printed.at(-1)).toBe('Ctrl+C stops it.');
    expect(demo.output()).not.toMatch(/Mapped \{|RoutesResolver|InstanceLoader/);
    expect(demo.output()).toContain(`  Session viewer   ${demo.base}/agent-store/viewer/\n`);
    expect(demo.output()).toContain('  API key          demo-key-for-local-use-only   (tenant "demo"; paste it into the viewer)\n');
    expect(demo.output()).toContain(`  Try: curl -H "Authorization: Bearer demo-key-for-local-use-only" ${demo.base}/agent-store/sessions\n`);
    // The agent's session, linked in the viewer, is the one it stored.
    const [, sessionId] = /Agent's session {2}.*#\/session\/(\S+)/.exec(demo.output()) ?? [];
    const stored = await fetch(`${demo.base}/agent-store/sessions/${sessionId}`, { headers: { Authorization: 'Bearer demo-key-for-local-use-only' } });
    expect({ status: stored.status, title: ((await stored.json()) as { title?: string }).title }).toEqual({ status: 200, title: 'A weekend in Lisbon' });
    const docs = await fetch(`${demo.base}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger');
    const viewer = await fetch(`${demo.base}/agent-store/viewer/`);
    expect(viewer.status).toBe(200);
    expect(viewer.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    const script = bashBlockUnder('docs/guide/http-api.md', '## Walkthrough').replaceAll('http://localhost:3000', demo.base);
    const result = await runBash(script, cwd);
    expect({ code: result.code, stderr: result.stderr, stdout: result.code === 0 ? '' : result.stdout }).toEqual({ code: 0, stderr: '', stdout: '' });
    const lines = result.stdout.split('\n');
    // Every step answered, each on its line: the agent's session, the count the page announces, the statuses.
    expect(lines[0]).toMatch(/"title":"A weekend in Lisbon"/);
    expect(lines).toContain('{"count":2}');
    expect(lines.filter((line) => /^\d{3}$/.test(line))).toEqual(['404', '401']);
    expect(lines.at(-2)).toMatch(/^\{"status":"ok"/);
  } finally {
    process.kill(-demo.child.pid!, 'SIGINT');
    await new Promise((resolve) => demo.child.once('exit', resolve));
  }
});
