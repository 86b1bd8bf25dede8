// The suite's `ai` is the AI SDK 6 on Node 20 and the AI SDK 7 on Node 22 and
// later (jest.config.js): the one loaded is read from its own package.json.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generateText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

interface PackageJson {
  name: string;
  version: string;
  dependencies: Record<string, string>;
}

const readPackage = (url: string): PackageJson => JSON.parse(readFileSync(fileURLToPath(url), 'utf8'));
const major = (version: string) => Number(version.split('.')[0]);

const nodeMajor = major(process.versions.node);
const ai = readPackage(import.meta.resolve('ai/package.json'));

test('the AI SDK is the newest major this Node runs: 6 on Node 20, 7 on Node 22 and later', () => {
  expect(ai.name).toBe('ai');
  expect(major(ai.version)).toBe(nodeMajor >= 22 ? 7 : 6);
});

test('the AI SDK loads its own @ai-sdk packages, not the older ones beside it', () => {
  const entry = import.meta.resolve('ai');
  for (const name of ['@ai-sdk/provider', '@ai-sdk/provider-utils']) {
    expect(readPackage(import.meta.resolve(`${name}/package.json`, entry)).version).toBe(ai.dependencies[name]);
  }
});

test("generateText returns a mock model's text", async () => {
  const model = new MockLanguageModelV3({
    doGenerate: {
      content: [{ type: 'text', text: 'hello from the mock' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: {
        inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 4, text: 4, reasoning: 0 },
      },
      warnings: [],
    },
  });
  const result = await generateText({ model, prompt: 'Say hello.' });
  expect(result.text).toBe('hello from the mock');
  expect(model.doGenerateCalls).toHaveLength(1);
});
