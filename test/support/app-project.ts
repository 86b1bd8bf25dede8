// An application's own project, as a user of the package has one: a folder
// with its schema.prisma (a generator, its datasource and its own models), its
// migrations, and node_modules (this repository's, linked, so that the client
// it generates finds @prisma/client). Prisma's CLI runs in it.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { ROOT } from './processes.js';

export interface AppProject {
  dir: string;
  schemaPath: string;
  migrationsDir: string;
  remove(): void;
}

/** A new project whose schema holds `models` for `provider`. */
export function appProject(provider: string, models: string): AppProject {
  const dir = mkdtempSync(join(tmpdir(), 'agent-store-app-'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  // ESM, as NestJS 12 and the store are: the generated client is compiled as the package type says.
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  const schemaPath = join(dir, 'schema.prisma');
  writeFileSync(
    schemaPath,
    `generator client {
  provider            = "prisma-client"
  output              = "./generated"
  moduleFormat        = "esm"
  importFileExtension = "js"
}

datasource db {
  provider = "${provider}"
}

${models}`,
  );
  // rm removes the node_modules link, not what it points to.
  return { dir, schemaPath, migrationsDir: join(dir, 'migrations'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Runs Prisma's CLI on the project's schema. Its generate and format run no
 * schema engine, but the CLI insists that one exists: any executable will do.
 */
export async function prismaCli(project: AppProject, command: 'generate' | 'format'): Promise<void> {
  await promisify(execFile)(process.execPath, [join(ROOT, 'node_modules', 'prisma', 'build', 'index.js'), command, '--schema', project.schemaPath], {
    cwd: project.dir,
    env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: '1' },
  });
}

/** `prisma generate`, then the PrismaClient class it wrote. */
export async function generatedClient<Client>(project: AppProject): Promise<new (options: { adapter: SqlDriverAdapterFactory }) => Client> {
  await prismaCli(project, 'generate');
  const generated = (await import(join(project.dir, 'generated', 'client.ts'))) as {
    PrismaClient: new (options: { adapter: SqlDriverAdapterFactory }) => Client;
  };
  return generated.PrismaClient;
}
