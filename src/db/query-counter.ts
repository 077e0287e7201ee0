/** Counts the SQL statements Prisma sends, by wrapping the driver adapter (tests assert bounded query counts). */
import type { SqlMigrationAwareDriverAdapterFactory, SqlQueryable } from '@prisma/driver-adapter-utils';

export class QueryCounter {
  count = 0;
  /** Runs `fn` and returns how many statements it sent. */
  async measure<T>(fn: () => Promise<T>): Promise<{ result: T; queries: number }> {
    const before = this.count;
    const result = await fn();
    return { result, queries: this.count - before };
  }
}

function wrapQueryable<Q extends SqlQueryable>(q: Q, counter: QueryCounter): Q {
  return new Proxy(q, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === 'queryRaw' || prop === 'executeRaw') {
        return (...args: unknown[]) => {
          counter.count++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      if (prop === 'startTransaction') {
        return async (...args: unknown[]) => {
          const tx = await (value as (...a: unknown[]) => Promise<SqlQueryable>).apply(target, args);
          return wrapQueryable(tx, counter);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A factory whose connections count their statements into `counter`. */
export function countingFactory(
  factory: SqlMigrationAwareDriverAdapterFactory,
  counter: QueryCounter,
): SqlMigrationAwareDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => wrapQueryable(await factory.connect(), counter),
    connectToShadowDb: async () => factory.connectToShadowDb(),
  } as SqlMigrationAwareDriverAdapterFactory;
}
