export { appRouter, type AppRouter } from './router.ts';
export type { Context } from './context.ts';
export {
  toProblem,
  fieldErrorsOf,
  MAX_LISTED_ERRORS,
  NO_ROUTE_DETAIL,
  type ProblemResponse,
} from './errors.ts';
export { listProcedures, procedureMeta } from './procedures.ts';
