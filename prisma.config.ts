import { defineConfig } from 'prisma/config';

// Prisma CLI config. Only `prisma generate` is used here; migrations are applied by src/db/migrate.ts.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
