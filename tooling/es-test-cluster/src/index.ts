export { startTestCluster } from './server.ts';
export type { ActiveQuery, QueryStats, TestCluster, TestClusterOptions } from './server.ts';
export { loadFixtures, buildIndex, parseSecurity } from './fixtures.ts';
export type {
  Fixtures,
  LoadedIndex,
  SecurityConfig,
  SecurityApiKey,
  SecurityUser,
  IndexPrivilegeGrant,
} from './fixtures.ts';
export { parseVersion, capabilities } from './versions.ts';
export type { VersionInfo, Capabilities } from './versions.ts';
export { EsError } from './errors.ts';
export { fixtureDir, type FixtureName } from './shipped.ts';
