// A jest resolver for Node 22 and later (jest.config.js): our sources' and tests'
// `ai` and `ai/<subpath>` are the AI SDK 7 (the devDependency `ai-7`), so the
// suite that imports `ai` runs on ai 6 under Node 20 and on ai 7 under Node 24.
// Not a moduleNameMapper: that would also hand ai 7 to packages in node_modules
// that import their own `ai` (@mastra/core brings ai 4).
const AI = /^ai(\/.*)?$/;

export default function resolve(request, options) {
  const match = AI.exec(request);
  const fromOurCode = !options.basedir.split(/[\\/]/).includes('node_modules');
  return options.defaultResolver(match && fromOurCode ? `ai-7${match[1] ?? ''}` : request, options);
}
