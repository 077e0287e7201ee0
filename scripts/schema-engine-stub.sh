#!/bin/sh
# Stand-in for Prisma's native schema engine, which `prisma generate` does not use but the CLI insists on locating.
echo "schema engine stub: migrations run through src/db/migrate.ts" >&2
exit 1
