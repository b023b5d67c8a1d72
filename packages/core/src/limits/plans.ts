import type { PlanId } from '@aqs/contracts';

export interface PlanLimits {
  /** Connections that are not paused (the demo connection does not count). */
  connections: number;
  questionsPerMonth: number;
  schemaAnalysesPerMonth: number;
  seats: number;
}

export const PLAN_LIMITS: Record<PlanId, PlanLimits> = {
  free: { connections: 3, questionsPerMonth: 200, schemaAnalysesPerMonth: 5, seats: 1 },
  pro: { connections: 25, questionsPerMonth: 5000, schemaAnalysesPerMonth: 100, seats: 1 },
  team: { connections: 100, questionsPerMonth: 25000, schemaAnalysesPerMonth: 500, seats: 25 },
};
