import {
  planIds,
  planOverridesSchema,
  type FieldError,
  type PlanId,
  type PlanLimitsRecord,
} from '@aqs/contracts';

export interface PlanLimits {
  /** Connections that are not paused (the demo connection does not count). */
  connections: number;
  questionsPerMonth: number;
  schemaAnalysesPerMonth: number;
  /** People in the workspace, the owner included; pending invites hold a seat. */
  seats: number;
}

export type PlanTable = Record<PlanId, PlanLimits>;

/** The defaults; an operator overrides any of them with PLAN_LIMITS_FILE (see `parsePlanOverrides`). */
export const PLAN_LIMITS: PlanTable = {
  free: { connections: 3, questionsPerMonth: 200, schemaAnalysesPerMonth: 5, seats: 1 },
  pro: { connections: 25, questionsPerMonth: 5000, schemaAnalysesPerMonth: 100, seats: 1 },
  team: { connections: 100, questionsPerMonth: 25000, schemaAnalysesPerMonth: 500, seats: 25 },
};

/** The plan table in force: the operator's, or the defaults. */
export function planLimitsOf(deps: { planLimits?: PlanTable | undefined }): PlanTable {
  return deps.planLimits ?? PLAN_LIMITS;
}

export function planLimitsRecord(limits: PlanLimits): PlanLimitsRecord {
  return {
    questions_per_month: limits.questionsPerMonth,
    schema_analyses_per_month: limits.schemaAnalysesPerMonth,
    connections: limits.connections,
    seats: limits.seats,
  };
}

/**
 * The operator's plan overrides (`{"team": {"seats": 50}, "free": {"questions_per_month": 100}}`)
 * merged over the defaults; what is not named keeps its default. Problems name the field.
 */
export function parsePlanOverrides(value: unknown): { table: PlanTable } | { errors: FieldError[] } {
  const parsed = planOverridesSchema.safeParse(value);
  if (!parsed.success) {
    return {
      errors: parsed.error.issues.map((issue) => ({
        field: issue.path.join('.') || '(file)',
        message:
          issue.code === 'unrecognized_keys'
            ? `unknown ${issue.path.length === 0 ? 'plan' : 'limit'} ${issue.keys.join(', ')} (plans: ${planIds.join(', ')}; limits: questions_per_month, schema_analyses_per_month, connections, seats)`
            : issue.message,
      })),
    };
  }
  const table = structuredClone(PLAN_LIMITS);
  for (const plan of planIds) {
    const override = parsed.data[plan];
    if (!override) continue;
    const limits = table[plan];
    if (override.questions_per_month !== undefined) limits.questionsPerMonth = override.questions_per_month;
    if (override.schema_analyses_per_month !== undefined)
      limits.schemaAnalysesPerMonth = override.schema_analyses_per_month;
    if (override.connections !== undefined) limits.connections = override.connections;
    if (override.seats !== undefined) limits.seats = override.seats;
  }
  return { table };
}
