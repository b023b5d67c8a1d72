import { and, eq, lt, sql } from 'drizzle-orm';
import { usageCounters, type Executor } from '@aqs/db';
import type { PlanId } from '@aqs/contracts';
import { DomainError } from '../errors.ts';
import { PLAN_LIMITS, type PlanLimits } from './plans.ts';

export type UsageMetric = 'questions' | 'schema_analyses';

const LIMIT_OF: Record<UsageMetric, keyof PlanLimits> = {
  questions: 'questionsPerMonth',
  schema_analyses: 'schemaAnalysesPerMonth',
};
const CODE_OF: Record<UsageMetric, string> = {
  questions: 'quota_questions_exceeded',
  schema_analyses: 'quota_schema_analyses_exceeded',
};
const WHAT: Record<UsageMetric, string> = { questions: 'questions', schema_analyses: 'AI schema analyses' };

export function usagePeriod(now: Date): string {
  return now.toISOString().slice(0, 7);
}

/**
 * Takes one unit of a monthly allowance in one atomic statement: the upsert only increments while the
 * count is under the plan's limit, so N concurrent requests with one unit left give exactly one success.
 */
export async function consumeUsage(db: Executor, workspaceId: string, plan: PlanId, metric: UsageMetric, now = new Date()): Promise<void> {
  const limit = PLAN_LIMITS[plan][LIMIT_OF[metric]];
  const taken = await db
    .insert(usageCounters)
    .values({ workspaceId, period: usagePeriod(now), metric, count: 1 })
    .onConflictDoUpdate({
      target: [usageCounters.workspaceId, usageCounters.period, usageCounters.metric],
      set: { count: sql`${usageCounters.count} + 1` },
      setWhere: lt(usageCounters.count, limit),
    })
    .returning({ count: usageCounters.count });
  if (taken.length === 0 || (taken[0]?.count ?? 0) > limit) {
    throw new DomainError(
      'quota_exceeded',
      `Your ${plan} plan includes ${limit} ${WHAT[metric]} a month and this month's are used. They renew on the 1st (UTC); upgrade the plan for more.`,
      { code: CODE_OF[metric] },
    );
  }
}

/** Gives a unit back (a run refused before it started must not cost the user). */
export async function refundUsage(db: Executor, workspaceId: string, metric: UsageMetric, now = new Date()): Promise<void> {
  await db
    .update(usageCounters)
    .set({ count: sql`greatest(${usageCounters.count} - 1, 0)` })
    .where(and(eq(usageCounters.workspaceId, workspaceId), eq(usageCounters.period, usagePeriod(now)), eq(usageCounters.metric, metric)));
}
