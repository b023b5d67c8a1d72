/**
 * The half of the connector that talks to a cluster: the Elasticsearch client and what it brings
 * (undici, OpenTelemetry, Apache Arrow: about 200 ms and several MB to load). connector.ts loads it
 * on the first operation that needs a cluster, not at start.
 */
export { executeEs } from './execute.ts';
export { introspectEs } from './introspect.ts';
export { testEs } from './test-connection.ts';
export { closeElasticsearchClients, dropElasticsearchClient } from './client.ts';
