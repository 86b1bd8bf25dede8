#!/usr/bin/env node
// The package's command line (package.json's bin). It loads nothing but Node
// and the store's models, so it runs without the app, NestJS or a database.
import { parseArgs } from 'node:util';
import { PROVIDERS, type Provider } from '../engine/provider-kit.js';
import { mergeIntoFile, printedModels } from './prisma-models.js';

const USAGE = `usage: nestjs-agent-store prisma-models --provider <${PROVIDERS.join('|')}> [--merge <schema.prisma>]
  Prints the store's models as your Prisma schema must hold them.
  --merge adds those the schema file lacks to it; a model of the same name with other content is refused, nothing written.`;

/** A command line that cannot be run as given: its message is followed by the usage. */
class UsageError extends Error {}

function main(argv: string[]): void {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { provider: { type: 'string' }, merge: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      tokens: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals, tokens } = parsed;
  // parseArgs keeps the last of a repeated option: a second --provider or --merge is a mistake to say, not to guess.
  const given = tokens.flatMap((token) => (token.kind === 'option' ? [token.name] : []));
  const repeated = given.find((name, i) => given.indexOf(name) !== i);
  if (repeated !== undefined) throw new UsageError(`--${repeated} is given more than once`);
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (positionals.length !== 1 || positionals[0] !== 'prisma-models') {
    throw new UsageError(positionals.length === 0 ? 'name a command' : `unknown command "${positionals.join(' ')}"`);
  }
  const provider = values.provider as Provider;
  if (!PROVIDERS.includes(provider)) throw new UsageError(`--provider must be ${PROVIDERS.join(', ')}; got ${values.provider ?? 'nothing'}`);
  if (values.merge === undefined) {
    process.stdout.write(printedModels(provider));
    return;
  }
  const added = mergeIntoFile(values.merge, provider);
  console.log(
    added.length > 0
      ? `${values.merge}: added ${added.join(', ')}. Now create and apply a migration with them (prisma migrate dev).`
      : `${values.merge} already holds the store's models for ${provider}: nothing written.`,
  );
}

try {
  main(process.argv.slice(2));
} catch (error) {
  console.error(`nestjs-agent-store: ${(error as Error).message}${error instanceof UsageError ? `\n${USAGE}` : ''}`);
  process.exitCode = error instanceof UsageError ? 2 : 1;
}
