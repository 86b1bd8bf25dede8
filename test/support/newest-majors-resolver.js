// A jest resolver for Node 22 and later (jest.config.js): our sources' and tests'
// imports of a framework whose newest major needs Node 22 resolve to that major,
// installed as a devDependency alias, so the suite runs the older line under
// Node 20 and the newest under Node 24: `ai` is ai 7 (`ai-7`), `@openai/agents-core` is 0.20
// (`openai-agents-core-0.20`) and `@openai/agents-openai` 0.20 (`openai-agents-openai-0.20`),
// each with its subpaths.
// Not a moduleNameMapper: that would also hand them to packages in node_modules
// that import their own (@mastra/core brings ai 4).
const NEWEST = [
  [/^ai(\/.*)?$/, 'ai-7'],
  [/^@openai\/agents-core(\/.*)?$/, 'openai-agents-core-0.20'],
  [/^@openai\/agents-openai(\/.*)?$/, 'openai-agents-openai-0.20'],
];

export default function resolve(request, options) {
  const fromOurCode = !options.basedir.split(/[\\/]/).includes('node_modules');
  for (const [pattern, alias] of fromOurCode ? NEWEST : []) {
    const match = pattern.exec(request);
    if (match) return options.defaultResolver(`${alias}${match[1] ?? ''}`, options);
  }
  return options.defaultResolver(request, options);
}
