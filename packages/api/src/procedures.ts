import type { ZodType } from 'zod';
import { appRouter } from './router.ts';
import type { Meta } from './trpc.ts';

interface ProcedureDef {
  type: 'query' | 'mutation' | 'subscription';
  meta?: Meta;
  inputs: ZodType[];
}

/** The one place that reads the router's procedure table (tRPC keeps it under `_def`). */
function procedureTable(): Record<string, { _def: ProcedureDef } | undefined> {
  return appRouter._def.procedures as unknown as Record<string, { _def: ProcedureDef } | undefined>;
}

/** The meta of a procedure by its tRPC path (`connections.test`), or undefined for an unknown path. */
export function procedureMeta(path: string): Meta | undefined {
  const procedures = procedureTable();
  return Object.hasOwn(procedures, path) ? procedures[path]?._def.meta : undefined;
}

/** Every query and mutation with its tRPC path, meta and input schema (the REST adapter's routes). */
export function listProcedures(): { path: string; meta: Meta | undefined; input: ZodType | undefined }[] {
  return Object.entries(procedureTable()).flatMap(([path, procedure]) =>
    procedure && procedure._def.type !== 'subscription'
      ? [{ path, meta: procedure._def.meta, input: procedure._def.inputs[0] }]
      : [],
  );
}
