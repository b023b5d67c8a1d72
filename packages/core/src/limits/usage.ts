import { and, eq, lt, sql } from 'drizzle-orm';
import { usageCounters, workspaces, type Executor } from '@aqs/db';
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
 * Takes one unit of a monthly allowance, atomically: the increment only happens while the count is
 * under the limit, so N concurrent requests with one unit left give exactly one success.
 */
export async function consumeUsage(db: Executor, workspaceId: string, metric: UsageMetric, now = new Date()): Promise<void> {
  const [ws] = await db.select({ plan: workspaces.plan }).from(workspaces).where(eq(workspaces.id, workspaceId)).limit(1);
  if (!ws) throw new DomainError('not_found', 'Workspace not found.');
  const limit = PLAN_LIMITS[ws.plan][LIMIT_OF[metric]];
  const period = usagePeriod(now);
  await db.insert(usageCounters).values({ workspaceId, period, metric, count: 0 }).onConflictDoNothing();
  const taken = await db
    .update(usageCounters)
    .set({ count: sql`${usageCounters.count} + 1` })
    .where(and(eq(usageCounters.workspaceId, workspaceId), eq(usageCounters.period, period), eq(usageCounters.metric, metric), lt(usageCounters.count, limit)))
    .returning({ count: usageCounters.count });
  if (taken.length === 0) {
    throw new DomainError(
      'quota_exceeded',
      `Your ${ws.plan} plan includes ${limit} ${WHAT[metric]} a month and this month's are used. They renew on the 1st (UTC); upgrade the plan for more.`,
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
