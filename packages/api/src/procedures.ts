import { appRouter } from './router.ts';
import type { Meta } from './trpc.ts';

type ProcedureRecord = Record<string, { _def: { meta?: Meta } } | undefined>;

/** The meta of a procedure by its tRPC path (`connections.test`), or undefined for an unknown path. */
export function procedureMeta(path: string): Meta | undefined {
  const procedures = appRouter._def.procedures as unknown as ProcedureRecord;
  return Object.hasOwn(procedures, path) ? procedures[path]?._def.meta : undefined;
}
