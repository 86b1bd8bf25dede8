// For Prisma's own CLI (`prisma migrate deploy`, `migrate status`, `studio`) where
// its native engine is available: DATABASE_URL picks the provider's schema and migrations.
import { defineConfig } from 'prisma/config';

const url = process.env.DATABASE_URL ?? 'file:./data/agent-store.db';
const provider = url.startsWith('file:') ? 'sqlite' : /^postgres(ql)?:/.test(url) ? 'postgresql' : 'mysql';

export default defineConfig({
  schema: `prisma/${provider}/schema.prisma`,
  migrations: { path: `prisma/migrations/${provider}` },
  datasource: { url },
});
