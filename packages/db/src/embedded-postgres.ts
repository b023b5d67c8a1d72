/**
 * The server settings of every embedded PostgreSQL (PGlite) the service opens: the app store, and
 * the demo database (the server hands them to the connectors when it opens it). PGlite writes them as the whole of the data directory's postgresql.conf, so they
 * repeat what its initdb writes there, except the shared buffers: 16 MB instead of 128 MB. The
 * WebAssembly heap holds the buffers, so each open instance takes about 110 MB less memory; the
 * databases are small and the operating system caches their files.
 */
export const EMBEDDED_POSTGRES_CONF: readonly string[] = [
  'shared_buffers = 16MB',
  'max_connections = 100',
  'dynamic_shared_memory_type = posix',
  'max_wal_size = 1GB',
  'min_wal_size = 80MB',
  'log_file_mode = 0640',
  'log_timezone = UTC',
  'autovacuum_worker_slots = 16',
  "datestyle = 'iso, mdy'",
  'timezone = UTC',
  'lc_messages = C',
  'lc_monetary = C',
  'lc_numeric = C',
  'lc_time = C',
  "default_text_search_config = 'pg_catalog.english'",
];
