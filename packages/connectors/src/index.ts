import type { Connector, DialectDescriptor } from './types.ts';
import { elasticsearchConnector } from './elasticsearch/connector.ts';
import { postgresConnector } from './postgres/connector.ts';
import { mysqlConnector } from './mysql/connector.ts';
import { bounded } from './bounded.ts';

export * from './types.ts';
export { ConnectorError, type ConnectorErrorKind } from './errors.ts';
export { abortedError, deadlinePassed, DEADLINE_GRACE_MS } from './bounded.ts';
export { isBlockedAddress, guardedLookup, assertHostAllowed } from './network.ts';
export { openDemoDatabase, demoSeedStatements, DEMO_CONNECTION } from './demo/database.ts';
export { CompileError, pinRange, type CompileOptions } from './compile/index.ts';

// Every operation of every connector has a total deadline and ends with the caller's signal.
const connectors: Record<string, Connector> = {
  elasticsearch: bounded(elasticsearchConnector),
  postgres: bounded(postgresConnector),
  mysql: bounded(mysqlConnector),
};

/** Engines users ask for that are not supported yet: listed so clients can show them as coming. */
const unavailable: DialectDescriptor[] = [
  ['opensearch', 'OpenSearch', 'OpenSearch implements PPL, not ES|QL; it is not supported.'],
  ['bigquery', 'Google BigQuery', 'Planned.'],
  ['snowflake', 'Snowflake', 'Planned.'],
  ['clickhouse', 'ClickHouse', 'Planned.'],
].map(([id, name, note]) => ({
  id: id as string,
  name: name as string,
  availability: 'unavailable' as const,
  availability_note: note as string,
  query_language: id === 'opensearch' ? 'PPL' : 'SQL',
  color: '#8a8f98',
  auth_modes: [],
  capabilities: null,
}));

/** The authoritative list of engines: the available connectors first, then the planned ones. */
export function listDialects(): DialectDescriptor[] {
  return [...Object.values(connectors).map((c) => c.descriptor), ...unavailable];
}

export function findDialect(id: string): DialectDescriptor | undefined {
  return listDialects().find((d) => d.id === id);
}

/** The connector of an available dialect, or undefined. */
export function connectorFor(dialect: string): Connector | undefined {
  return connectors[dialect];
}

/**
 * Forgets whatever a connector keeps for a connection (cached clients, pooled sockets): called when the
 * connection is re-pointed or deleted, so nothing opened for the old target is reused.
 */
export function releaseConnection(connectionId: string): void {
  for (const connector of Object.values(connectors)) connector.release?.(connectionId);
}

/** Closes every client the connectors keep open (at shutdown). */
export async function closeConnectors(): Promise<void> {
  await Promise.all(Object.values(connectors).map((connector) => connector.close?.()));
}
export { matchesName as matchesIndexPattern } from './elasticsearch/patterns.ts';
