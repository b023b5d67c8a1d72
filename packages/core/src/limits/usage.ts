import { and, asc, eq, lt, sql } from 'drizzle-orm';
import { executeRows, runs, usageCharges, usageCounters, type Database, type Executor } from '@aqs/db';
import { DEADLINE_GRACE_MS } from '@aqs/connectors';
import type { PlanId } from '@aqs/contracts';
import { DomainError } from '../errors.ts';
import { PLAN_LIMITS, type PlanLimits, type PlanTable } from './plans.ts';

export type UsageMetric = 'questions' | 'schema_analyses';
export const USAGE_METRICS: readonly UsageMetric[] = ['questions', 'schema_analyses'];

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
 *
 * With `chargeId`, the unit is also recorded as a pending charge (`usage_charges`, id = the id the
 * work will be stored under) in the same transaction: the counter and the charge exist together or
 * not at all. Storing the work settles the charge (`settleCharge`, or `settleChargeCtes` in the
 * statement that stores it); a
 * charge never settled is refunded by `refundStaleCharges` once no run could still be alive.
 */
export async function consumeUsage(
  db: Executor,
  workspaceId: string,
  plan: PlanId,
  metric: UsageMetric,
  now = new Date(),
  chargeId?: string,
  table: PlanTable = PLAN_LIMITS,
): Promise<void> {
  const limit = table[plan][LIMIT_OF[metric]];
  const period = usagePeriod(now);
  // One statement (one round trip): the unit is taken while the month's count is under the limit,
  // and the charge is recorded only when it was.
  const [row] = await executeRows<{ count: number | null }>(
    db,
    sql`with taken as (
          insert into ${usageCounters} (workspace_id, period, metric, count)
          values (${workspaceId}, ${period}, ${metric}, 1)
          on conflict (workspace_id, period, metric)
            do update set count = ${usageCounters}.count + 1 where ${usageCounters}.count < ${limit}
          returning count
        ), charged as (
          insert into ${usageCharges} (id, workspace_id, period, metric, created_at)
          select ${chargeId ?? null}, ${workspaceId}, ${period}, ${metric}, ${now.toISOString()}::timestamptz
          from taken where ${chargeId ?? null}::text is not null and taken.count <= ${limit}
        )
        select (select count from taken) as count`,
  );
  const ok = row?.count !== null && row?.count !== undefined && Number(row.count) <= limit;
  if (!ok) {
    throw new DomainError(
      'quota_exceeded',
      `Your ${plan} plan includes ${limit} ${WHAT[metric]} a month and this month's are used. They renew on the 1st (UTC); upgrade the plan for more.`,
      { code: CODE_OF[metric] },
    );
  }
}

/**
 * Settles a pending charge inside the transaction that stores its work (the unit stays spent). When
 * the charge is gone, it was refunded because the work outlived the refund bound (see
 * `staleChargeAgeMs`): the unit is taken again (without the limit: the work is done) so the
 * question is counted exactly once.
 */
export async function settleCharge(
  tx: Executor,
  chargeId: string,
  workspaceId: string,
  metric: UsageMetric,
  now = new Date(),
): Promise<void> {
  await executeRows(tx, sql`with ${settleChargeCtes(chargeId, workspaceId, metric, now)} select 1`);
}

/**
 * `settleCharge` as two common table expressions (`settled_charge`, `recounted_charge`), for a
 * statement that stores the charged work in the same round trip.
 */
export function settleChargeCtes(
  chargeId: string,
  workspaceId: string,
  metric: UsageMetric,
  now = new Date(),
) {
  return sql`settled_charge as (
      delete from ${usageCharges} where ${usageCharges.id} = ${chargeId} returning 1
    ), recounted_charge as (
      insert into ${usageCounters} (workspace_id, period, metric, count)
      select ${workspaceId}, ${usagePeriod(now)}, ${metric}, 1
      where not exists (select 1 from settled_charge)
      on conflict (workspace_id, period, metric) do update set count = ${usageCounters}.count + 1
      returning 1
    )`;
}

/**
 * Refunds one pending charge in one transaction: `DELETE ... RETURNING` hands the charge to exactly one
 * caller, which gives the unit back to the charge's own period (never below zero). A charge whose
 * run is stored anyway is dropped without a refund (defence in depth: storing deletes it). With
 * `olderThan`, only a charge created before it is refunded. Returns whether a unit came back.
 */
export async function refundCharge(db: Database, chargeId: string, olderThan?: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const condition = olderThan
      ? and(eq(usageCharges.id, chargeId), lt(usageCharges.createdAt, olderThan))
      : eq(usageCharges.id, chargeId);
    const [charge] = await tx.delete(usageCharges).where(condition).returning({
      workspaceId: usageCharges.workspaceId,
      period: usageCharges.period,
      metric: usageCharges.metric,
    });
    if (!charge) return false;
    const [stored] = await tx.select({ id: runs.id }).from(runs).where(eq(runs.id, chargeId)).limit(1);
    if (stored) return false;
    await tx
      .update(usageCounters)
      .set({ count: sql`greatest(${usageCounters.count} - 1, 0)` })
      .where(
        and(
          eq(usageCounters.workspaceId, charge.workspaceId),
          eq(usageCounters.period, charge.period),
          eq(usageCounters.metric, charge.metric),
        ),
      );
    return true;
  });
}

/**
 * How old a pending charge must be before it is refunded: longer than any run can live, so an
 * instance never refunds a run another live instance is still working on. A run's data-source steps
 * are each bounded by QUERY_TIMEOUT_SECONDS plus the connect grace (introspection, sampling, the
 * query: about 3 x (timeout + grace), 105 s at the default 30 s) and the planner call is re-asked at
 * most once; ten times the per-step bound, and never less than an hour, leaves a wide margin. A
 * refund is not urgent (the unit comes back an hour late at worst), a wrong one would be worse; and
 * should a run still outlive the bound, `settleCharge` takes the unit again when it is stored.
 */
export function staleChargeAgeMs(requestTimeoutMs: number): number {
  return Math.max(3_600_000, 10 * (requestTimeoutMs + DEADLINE_GRACE_MS));
}

/**
 * Refunds pending charges older than `staleChargeAgeMs` (work charged and never stored: the process
 * died in between), each with `refundCharge`, so concurrent refunders (several instances, start-up
 * and the periodic cleanup) refund each charge once. Returns how many units were given back.
 */
export async function refundStaleCharges(
  db: Database,
  options: { requestTimeoutMs: number; now?: Date; batch?: number },
): Promise<number> {
  const cutoff = new Date((options.now ?? new Date()).getTime() - staleChargeAgeMs(options.requestTimeoutMs));
  const stale = await db
    .select({ id: usageCharges.id })
    .from(usageCharges)
    .where(lt(usageCharges.createdAt, cutoff))
    .orderBy(asc(usageCharges.createdAt))
    .limit(options.batch ?? 500);
  let refunded = 0;
  for (const { id } of stale) if (await refundCharge(db, id, cutoff)) refunded++;
  return refunded;
}
