// The suite's `@openai/agents-core` is the newest line for each Node: 0.14 on Node 20 (0.15 and
// later need `openai` 7, which needs Node 22) and 0.20 on Node 22 and later (jest.config.js).
// The one loaded is read from the package.json beside its entry.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const nodeMajor = Number(process.versions.node.split('.')[0]);
const entry = fileURLToPath(import.meta.resolve('@openai/agents-core'));
const sdk = JSON.parse(readFileSync(new URL('../package.json', `file://${entry}`), 'utf8')) as { name: string; version: string };

test('the OpenAI Agents SDK is the newest line this Node runs: 0.14 on Node 20, 0.20 on Node 22 and later', () => {
  expect(sdk.name).toBe('@openai/agents-core');
  expect(sdk.version).toMatch(nodeMajor >= 22 ? /^0\.20\./ : /^0\.14\./);
});
