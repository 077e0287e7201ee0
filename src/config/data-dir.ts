/** Where the service keeps its data (the embedded database, the key file) when DATA_DIR is not set. */
export const DEFAULT_DATA_DIR = './data';

/**
 * The embedded database's DATA_DIR, read from the environment before the rest of the configuration (src/main.ts
 * starts the database while the service loads): null with DATABASE_URL. An empty variable counts as unset, as in
 * loadConfig.
 */
export function embeddedDataDirOf(env: Record<string, string | undefined>): string | null {
  return env.DATABASE_URL ? null : env.DATA_DIR || DEFAULT_DATA_DIR;
}
