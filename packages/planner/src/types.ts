import type { ChartType, QuerySpec } from '@aqs/contracts';
import type { DialectCapabilities } from '@aqs/connectors';
import type { SemanticType } from '@aqs/contracts';
import type { SchemaDescriber } from './llm-schema.ts';
import type { StyleReader } from './llm-style.ts';

/** One column as the planner sees it: structure plus what discovery learnt about it. */
export interface SchemaColumn {
  name: string;
  type: string;
  description: string | null;
  sample_values: (string | number | boolean)[];
  queryable: boolean;
  /** Elasticsearch: some documents hold several values, which ES|QL comparisons leave out (discovery probes it). */
  multi_valued?: boolean;
  /** What the column holds, from the schema analysis (money, quantity, category…), when there is one. */
  semantic_type?: SemanticType;
}

export interface SchemaTable {
  /** Qualified for SQL (`shop.orders`); the index, alias or data stream name for Elasticsearch. */
  name: string;
  kind: string;
  description: string | null;
  row_estimate: number | null;
  columns: SchemaColumn[];
  primary_key: string[];
  foreign_keys: { columns: string[]; references: { table: string; columns: string[] } }[];
  /** Elasticsearch: the concrete indices a pattern, alias or data stream table reads. */
  members?: string[];
}

export interface PlannerSchema {
  /** What the engine can run, from its connector: plans use nothing it lacks. */
  capabilities: DialectCapabilities;
  tables: SchemaTable[];
}

/** A previous turn of the conversation. */
export interface PlanTurn {
  question: string;
  spec: QuerySpec;
  chart_type: ChartType | null;
}

export interface PlanRequest {
  question: string;
  schema: PlannerSchema;
  history: PlanTurn[];
  /** The conversation's latest turn got no answer (it failed or was refused): a follow-up cannot refine it. */
  lastTurnUnanswered?: boolean;
  chartRequested: boolean;
  now: Date;
  signal?: AbortSignal;
}

export interface Plan {
  spec: QuerySpec;
  /** Offline planner: how sure the reading is (1 = every word explained). A cascade asks a model below its threshold. */
  confidence?: number;
  chart_type: ChartType | null;
  planner: 'offline' | 'llm';
  usage: { prompt_tokens: number; completion_tokens: number };
  notes: string[];
}

export interface Planner {
  /** `cascade`: offline first, the model for the rest (each Plan says which one answered). */
  readonly id: 'offline' | 'llm' | 'cascade';
  plan(request: PlanRequest): Promise<Plan>;
  /** With a model: reads a chart-style request the offline lexicon could not (null: not one). */
  readonly readStyle?: StyleReader;
  /** With a model: describes a schema for its analysis (descriptions, semantic types, relationship names). */
  readonly describeSchema?: SchemaDescriber;
}

export type PlanningErrorType = 'unanswerable' | 'invalid_model_output' | 'model_unavailable' | 'cancelled';

/**
 * Why planning failed. `recoverable` says whether another attempt may succeed without the user
 * rephrasing: true for a model that was down or answered badly (retry later, or fall back to the
 * offline planner); false for a question the planner cannot map (rephrase) and for a cancellation.
 */
export class PlanningError extends Error {
  readonly type: PlanningErrorType;
  readonly recoverable: boolean;
  /** Questions over this schema the planner can answer, offered instead (clickable in the web app). */
  readonly suggestions: string[];
  constructor(
    type: PlanningErrorType,
    message: string,
    options?: { cause?: unknown; suggestions?: string[] },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PlanningError';
    this.type = type;
    this.recoverable = type === 'invalid_model_output' || type === 'model_unavailable';
    this.suggestions = options?.suggestions ?? [];
  }
}
