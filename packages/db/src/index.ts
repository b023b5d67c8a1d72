export * from './schema.ts';
export * as tables from './schema.ts';
export {
  openStore,
  migrationsFolder,
  executeRows,
  answeredWithin,
  isStoreUnavailable,
  isUniqueViolation,
} from './client.ts';
export type { Database, Transaction, Executor, Store, StoreOptions, StorePool, Schema } from './client.ts';
export { acquireDataDirLock, DataDirLockedError } from './lock.ts';
export { createClusterApart, hasCluster } from './create-apart.ts';
export { newId, randomChars } from './ids.ts';
export { embeddedStartParams, EMBEDDED_POSTGRES_SETTINGS } from './embedded-postgres.ts';
