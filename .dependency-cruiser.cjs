// The layers of src/ (docs/contributing/architecture.md): arrows point down only.
//   root module files (index, store.module*, store.options)   wire everything
//   http/            the opt-in HTTP API, on the stores' public surface
//   testing/         the conformance kit (nestjs-agent-store/testing), on the public API
//   integrations/<name>/   a framework's binding and its own storage
//   contract/        what a binding is written against (nestjs-agent-store/integration)
//   stores/<feature>/      a store's contract, service and operations
//   databases/<kit>/       one database's kit
//   engine/          the database handle, transactions, retries, errors, codecs, the tables' rows
//   values/          what a value is: the input rules, the stored and JSON forms, redaction
//   the public types and errors (LEAVES), which import nothing but each other
// `npm run lint:deps` checks them; test/internals/layers.test.ts shows a broken rule fails it.
const LEAVES = '^src/(store\\.errors|message\\.types|session\\.types|lifecycle\\.types|jsonl\\.types)\\.ts$';
const ENGINE = '^src/engine/';
const VALUES = '^src/values/';
const CONTRACT = '^src/contract/';
const GENERATED = '^src/generated/';
const STORE_SURFACE = '^src/stores/[^/]+/index\\.ts$';
/** What the root entry may import of src/http: the options, the tenant helper, the loader of the rest. */
const HTTP_LIGHT = '^src/http/(store-http\\.options|request-tenant|store-http\\.loader)\\.ts$';
/** The HTTP API's optional peers, installed (under node_modules/) or not (a bare name that did not resolve). */
const HTTP_PEERS = '(^|node_modules/)(@nestjs/swagger|@nestjs/throttler|class-validator|class-transformer)(/|$)';

/** A rule that `from` imports nothing of src/ but `allowed`. */
const only = (name, comment, from, allowed) => ({ name, comment, severity: 'error', from: { path: from }, to: { path: '^src/', pathNot: allowed } });

module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'An import cycle is a bug, even of types only: two files that need each other are one job split in two, or a third file they both need.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    only('leaves-import-leaves', 'The public types and errors import nothing but each other.', LEAVES, [LEAVES]),
    only('values-at-the-bottom', 'The values import only each other and the public types and errors.', VALUES, [VALUES, LEAVES]),
    only('engine-on-the-values', 'The engine imports only the engine, the values, the public types and errors, and the generated clients.', ENGINE, [
      ENGINE,
      VALUES,
      LEAVES,
      GENERATED,
    ]),
    only(
      'kits-import-the-engine',
      'A database kit imports its own folder, the engine, the public types and errors, and its generated client.',
      '^src/databases/([^/]+)/',
      ['^src/databases/$1/', ENGINE, VALUES, LEAVES, GENERATED],
    ),
    only('kits-are-listed', 'The list of kits (databases/index.ts) imports the kits and the engine.', '^src/databases/index\\.ts$', [
      '^src/databases/[^/]+/index\\.ts$',
      ENGINE,
      LEAVES,
    ]),
    only('stores-import-the-engine', 'A store imports its own folder, the engine, and other stores only through their index.ts.', '^src/stores/([^/]+)/', [
      '^src/stores/$1/',
      STORE_SURFACE,
      ENGINE,
      VALUES,
      LEAVES,
    ]),
    only(
      'integrations-own-their-storage',
      "An integration imports its own folder and the integration contract's index (which gives the typed errors too): what a binding outside this package could.",
      '^src/integrations/([^/]+)/',
      ['^src/integrations/$1/', '^src/contract/index\\.ts$'],
    ),
    only(
      'testing-on-the-public-api',
      "The conformance kit imports its own folder, the package's index and the contract's: what an app's own tests could.",
      '^src/testing/',
      ['^src/testing/', '^src/index\\.ts$', '^src/contract/index\\.ts$'],
    ),
    only('contract-on-the-engine', 'The integration contract imports its own folder, the engine and the values.', CONTRACT, [CONTRACT, ENGINE, VALUES, LEAVES]),
    only('http-on-the-stores', "The HTTP API imports its own folder, the stores' public surface, the values and the public types and errors.", '^src/http/', [
      '^src/http/',
      STORE_SURFACE,
      VALUES,
      LEAVES,
    ]),
    only('cli-on-the-engine', 'The CLI imports its own folder, the engine and the values.', '^src/cli/', ['^src/cli/', ENGINE, VALUES, LEAVES]),
    {
      name: 'http-loads-when-on',
      comment:
        "The HTTP API's optional peers (Swagger, class-validator, class-transformer, the throttler) load only when `http` is on: outside src/http only its light files are imported, and they load the rest with a dynamic import.",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/http/' },
      to: { path: '^src/http/', pathNot: HTTP_LIGHT },
    },
    {
      name: 'http-peers-in-http-only',
      comment: "Only the HTTP API's own files import its optional peers: an app without it does not install them.",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/http/' },
      to: { path: HTTP_PEERS },
    },
    {
      name: 'http-light-files-stay-light',
      comment: "The HTTP API's light files import no other file of it but dynamically, and none of its optional peers.",
      severity: 'error',
      from: { path: HTTP_LIGHT },
      to: { pathNot: HTTP_LIGHT, path: ['^src/http/', HTTP_PEERS], dependencyTypesNot: ['dynamic-import'] },
    },
    {
      name: 'testing-is-a-subpath',
      comment: 'Nothing outside the conformance kit imports it: it is a subpath export of its own, and the package never loads a test runner.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/testing/' },
      to: { path: '^src/testing/' },
    },
    {
      name: 'integrations-are-subpaths',
      comment: 'Nothing outside an integration imports it: each is a subpath export of its own.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/integrations/' },
      to: { path: '^src/integrations/' },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules', GENERATED] },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
