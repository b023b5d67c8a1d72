export { PlanningError } from './types.ts';
export type {
  SchemaColumn,
  SchemaTable,
  PlannerSchema,
  PlanTurn,
  PlanRequest,
  Plan,
  Planner,
  PlanningErrorType,
} from './types.ts';
export {
  buildContext,
  DEFAULT_MAX_COLUMNS_PER_TABLE,
  DEFAULT_MAX_TABLES,
  type BuildContextOptions,
  type ContextStats,
} from './context.ts';
export {
  fromIntrospection,
  validateSpecAgainstSchema,
  isTimeType,
  isNumericType,
  type SchemaExtras,
} from './schema.ts';
export { offlinePlanner } from './offline/planner.ts';
export {
  createLlmPlanner,
  createOpenAiCompatibleModel,
  renderPlannerPrompt,
  plannerOutputSchema,
  type LlmPlannerOptions,
} from './llm.ts';
export { interpretSpec, describeRange } from './interpret.ts';
export { createCascadePlanner, type CascadeOptions } from './cascade.ts';
export { mentionsStyle, readStyleRequest, type StyleRequest } from './style-request.ts';
export { chartTypeAskedIn } from './offline/parse.ts';
export { createLlmStyleReader, type StyleReader } from './llm-style.ts';
export {
  createLlmSchemaDescriber,
  COLUMNS_PER_CALL,
  type SchemaDescriber,
  type SchemaDescription,
  type SchemaDescriptionRequest,
} from './llm-schema.ts';
