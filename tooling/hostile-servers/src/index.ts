export {
  startHostileServer,
  GARBAGE,
  type Behaviour,
  type HostileServer,
  type HostileSocket,
  type HostileStats,
} from './tcp.ts';
export {
  startHostileHttp,
  startTlsFront,
  closedPort,
  RequestReader,
  responseHead,
  chunk,
  HTTP_SCENARIOS,
  type HttpScenario,
  type HostileHttpOptions,
  type HostileHttpRequest,
  type HostileHttpServer,
} from './http.ts';
export {
  startHostilePostgres,
  startPostgresProxy,
  pgMessages,
  POSTGRES_SCENARIOS,
  HOSTILE_BACKEND,
  type PostgresScenario,
  type HostilePostgres,
  type HostilePostgresConnection,
  type HostilePostgresOptions,
  type PostgresProxy,
  type PostgresProxyOptions,
} from './postgres.ts';
