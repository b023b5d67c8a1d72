import { PGlite } from '@electric-sql/pglite';

/**
 * Settings of every embedded PostgreSQL (PGlite) the server opens: the app store, and the demo
 * database (the server hands them to the connectors when it opens it). 16 MB of shared buffers
 * instead of 128 MB: the WebAssembly heap holds them, so each open instance takes about 110 MB less
 * memory, and the databases are small with their files in the operating system's cache. Given on the
 * command line, after PGlite's own start parameters; postgresql.conf stays as initdb wrote it.
 */
export const EMBEDDED_POSTGRES_SETTINGS: readonly string[] = ['shared_buffers=16MB'];

/** PGlite's start parameters with `settings` added (`-c name=value` each). */
export function embeddedStartParams(settings: readonly string[] = EMBEDDED_POSTGRES_SETTINGS): string[] {
  return [...PGlite.defaultStartParams, ...settings.flatMap((setting) => ['-c', setting])];
}
