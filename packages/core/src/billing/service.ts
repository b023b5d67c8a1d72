import { and, count, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { billingEvents, connections, usageCounters, users, workspaces, type Executor } from '@aqs/db';
import {
  planIds,
  type BillingSummary,
  type PaidPlanId,
  type PlanId,
  type SubscriptionStatus,
} from '@aqs/contracts';
import { DomainError } from '../errors.ts';
import { nowOf, type CoreDeps, type Logger } from '../ports.ts';
import { requireOwner, type Principal } from '../principal.ts';
import { planLimitsOf, planLimitsRecord, type PlanTable } from '../limits/plans.ts';
import { usagePeriod } from '../limits/usage.ts';
import { seatsOf } from '../workspaces/service.ts';
import { holdsSlot } from '../connections/service.ts';
import { PLAN_RANK, type BillingEvent, type BillingProvider, type SubscriptionState } from './provider.ts';

const NOT_CONFIGURED =
  'Billing is not set up on this server (no STRIPE_SECRET_KEY). The operator can set a plan with `npm run cli -- plans set --email <owner email> --plan team`.';

function providerOf(deps: CoreDeps): BillingProvider {
  if (!deps.billing) throw new DomainError('unavailable', NOT_CONFIGURED, { code: 'billing_not_configured' });
  return deps.billing;
}

function monthOf(now: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}

function statusOf(stored: string | null): SubscriptionStatus {
  return stored === 'active' || stored === 'trialing' || stored === 'past_due' || stored === 'canceled'
    ? stored
    : 'none';
}

export async function billingSummary(deps: CoreDeps, principal: Principal): Promise<BillingSummary> {
  const now = nowOf(deps);
  const table = planLimitsOf(deps);
  const [ws] = await deps.db.select().from(workspaces).where(eq(workspaces.id, principal.workspaceId));
  if (!ws) throw new DomainError('unauthorized', 'Your workspace no longer exists. Sign in again.');
  const limits = table[ws.plan];
  const counters = await deps.db
    .select({ metric: usageCounters.metric, count: usageCounters.count })
    .from(usageCounters)
    .where(and(eq(usageCounters.workspaceId, ws.id), eq(usageCounters.period, usagePeriod(now))));
  const used = (metric: string) => counters.find((c) => c.metric === metric)?.count ?? 0;
  const [active] = await deps.db.select({ n: count() }).from(connections).where(holdsSlot(ws.id));
  const month = monthOf(now);
  return {
    workspace_id: ws.id,
    plan: ws.plan,
    status: statusOf(ws.subscriptionStatus),
    period_start: month.start.toISOString(),
    period_end: month.end.toISOString(),
    renews_at: ws.stripeSubscriptionId && ws.currentPeriodEnd ? ws.currentPeriodEnd.toISOString() : null,
    usage: {
      questions: { used: used('questions'), limit: limits.questionsPerMonth },
      schema_analyses: { used: used('schema_analyses'), limit: limits.schemaAnalysesPerMonth },
      connections: { used: active?.n ?? 0, limit: limits.connections },
    },
    seats: await seatsOf(deps, ws.id, ws.plan, now),
    limits: Object.fromEntries(
      planIds.map((plan) => [plan, planLimitsRecord(table[plan])]),
    ) as BillingSummary['limits'],
    billing_configured: deps.billing !== undefined,
    can_manage: principal.role === 'owner',
  };
}

function appLink(deps: CoreDeps, path: string): string {
  const base = deps.auth.appUrl.endsWith('/') ? deps.auth.appUrl : `${deps.auth.appUrl}/`;
  return new URL(path, base).toString();
}

/**
 * Calls the payment provider; its failure (unreachable, refused) is a 503 the caller can retry, with
 * the cause logged, never a bare 500. No database transaction is open during the call.
 */
async function askProvider<T>(deps: CoreDeps, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    deps.logger.warn({ err: error, what }, 'the payment provider failed');
    throw new DomainError(
      'unavailable',
      `Stripe did not answer while ${what}. Nothing was changed; try again in a minute.`,
      { code: 'billing_provider_unavailable' },
    );
  }
}

/**
 * The workspace's customer at the provider: created the first time and reused afterwards. The
 * provider call happens outside any transaction; when two requests create one at the same time (the
 * Stripe adapter sends a per-workspace idempotency key, so both usually get the same customer), the
 * first one stored wins and the other request uses it.
 */
async function customerOf(deps: CoreDeps, provider: BillingProvider, principal: Principal): Promise<string> {
  const read = async () => {
    const [ws] = await deps.db
      .select({ customerId: workspaces.stripeCustomerId, name: workspaces.name })
      .from(workspaces)
      .where(eq(workspaces.id, principal.workspaceId));
    if (!ws) throw new DomainError('unauthorized', 'Your workspace no longer exists. Sign in again.');
    return ws;
  };
  const ws = await read();
  if (ws.customerId) return ws.customerId;
  const created = await askProvider(deps, 'creating the billing account', () =>
    provider.createCustomer({ workspaceId: principal.workspaceId, email: principal.email, name: ws.name }),
  );
  const stored = await deps.db
    .update(workspaces)
    .set({ stripeCustomerId: created, updatedAt: nowOf(deps) })
    .where(and(eq(workspaces.id, principal.workspaceId), isNull(workspaces.stripeCustomerId)))
    .returning({ id: workspaces.id });
  if (stored.length > 0) return created;
  const winner = (await read()).customerId;
  if (!winner) throw new Error('the workspace lost its billing customer');
  return winner;
}

const LIVE_STATUSES = new Set(['active', 'trialing', 'past_due']);

/** A hosted checkout page for a subscription to `plan`; the webhook applies it once paid. */
export async function startCheckout(
  deps: CoreDeps,
  principal: Principal,
  plan: PaidPlanId,
): Promise<{ url: string }> {
  requireOwner(principal, 'change the plan');
  const provider = providerOf(deps);
  const [ws] = await deps.db
    .select({
      subscriptionId: workspaces.stripeSubscriptionId,
      status: workspaces.subscriptionStatus,
      plan: workspaces.plan,
    })
    .from(workspaces)
    .where(eq(workspaces.id, principal.workspaceId));
  if (ws?.subscriptionId && LIVE_STATUSES.has(ws.status ?? '')) {
    throw new DomainError(
      'conflict',
      `This workspace already has a live ${ws.plan} subscription. Change or cancel it in the billing portal (POST /api/v1/billing/portal).`,
      { code: 'subscription_exists' },
    );
  }
  const customerId = await customerOf(deps, provider, principal);
  const url = await askProvider(deps, 'opening the checkout', () =>
    provider.checkoutUrl({
      customerId,
      workspaceId: principal.workspaceId,
      plan,
      successUrl: appLink(deps, 'billing?checkout=success'),
      cancelUrl: appLink(deps, 'billing?checkout=cancelled'),
    }),
  );
  return { url };
}

/** The provider's customer portal (change plan, payment method, invoices, cancel). */
export async function openPortal(deps: CoreDeps, principal: Principal): Promise<{ url: string }> {
  requireOwner(principal, 'manage billing');
  const provider = providerOf(deps);
  const [ws] = await deps.db
    .select({ customerId: workspaces.stripeCustomerId })
    .from(workspaces)
    .where(eq(workspaces.id, principal.workspaceId));
  if (!ws?.customerId) {
    throw new DomainError(
      'conflict',
      'This workspace has no billing account yet. Upgrade first (POST /api/v1/billing/checkout); the portal manages an existing subscription.',
      { code: 'no_billing_account' },
    );
  }
  return {
    url: await provider.portalUrl({ customerId: ws.customerId, returnUrl: appLink(deps, 'billing') }),
  };
}

/**
 * The plan and status a subscription state gives: its price's plan while it is live (active,
 * trialing, or past due during Stripe's retries); free once it is cancelled, expired, unpaid for good
 * (`unpaid`: status past_due, plan free until paid) or not yet paid (`incomplete`, `paused`).
 */
function planOfState(state: SubscriptionState): { plan: PlanId; status: SubscriptionStatus } {
  const status: SubscriptionStatus =
    state.status === 'active' || state.status === 'trialing' || state.status === 'past_due'
      ? state.status
      : state.status === 'unpaid'
        ? 'past_due'
        : state.status === 'canceled' || state.status === 'incomplete_expired'
          ? 'canceled'
          : 'none';
  return { plan: LIVE_STATUSES.has(state.status) && state.plan ? state.plan : 'free', status };
}

/**
 * Sets a workspace's plan and applies what it changes: on a downgrade, active connections beyond the
 * new slot count are paused, newest first (nothing is deleted; they are marked as paused by the
 * plan); on an upgrade, connections the plan had paused are resumed, oldest first, while slots are
 * free. Members beyond the seats stay (nothing is taken away), but no invite is sent or accepted
 * until seats are free. Returns how many connections were paused and resumed.
 */
export async function applyPlan(
  tx: Executor,
  table: PlanTable,
  workspaceId: string,
  plan: PlanId,
  now: Date,
  extra: Partial<typeof workspaces.$inferInsert> = {},
): Promise<{ paused: number; resumed: number }> {
  await tx
    .update(workspaces)
    .set({ ...extra, plan, updatedAt: now })
    .where(eq(workspaces.id, workspaceId));
  const slots = table[plan].connections;
  const active = await tx
    .select({ id: connections.id })
    .from(connections)
    .where(holdsSlot(workspaceId))
    .orderBy(desc(connections.createdAt), desc(connections.id));
  if (active.length > slots) {
    const beyond = active.slice(0, active.length - slots).map((c) => c.id);
    await tx
      .update(connections)
      .set({ paused: true, pausedByPlan: true, updatedAt: now })
      .where(inArray(connections.id, beyond));
    return { paused: beyond.length, resumed: 0 };
  }
  const free = slots - active.length;
  if (free === 0) return { paused: 0, resumed: 0 };
  const waiting = await tx
    .select({ id: connections.id })
    .from(connections)
    .where(and(eq(connections.workspaceId, workspaceId), eq(connections.pausedByPlan, true)))
    .orderBy(connections.createdAt, connections.id)
    .limit(free);
  if (waiting.length > 0) {
    await tx
      .update(connections)
      .set({ paused: false, pausedByPlan: false, updatedAt: now })
      .where(
        inArray(
          connections.id,
          waiting.map((c) => c.id),
        ),
      );
  }
  return { paused: 0, resumed: waiting.length };
}

export type WebhookOutcome = 'applied' | 'duplicate' | 'ignored';

const HANDLED = new Set([
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.payment_failed',
]);

const MAX_ASKS = 3;

/** The store's clock: every instance compares webhook applications on the same one. */
async function storeClock(db: Executor): Promise<Date> {
  const [row] = await db.select({ now: sql<string>`clock_timestamp()` }).from(sql`(select 1) as one`);
  return new Date(row!.now);
}

/** The event's object as JSON PostgreSQL can store: jsonb refuses the NUL character in any string. */
function storablePayload(value: unknown): Record<string, unknown> {
  const clean = (v: unknown): unknown =>
    typeof v === 'string'
      ? v.replaceAll('\0', '')
      : Array.isArray(v)
        ? v.map(clean)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, inner]) => [k.replaceAll('\0', ''), clean(inner)]))
          : v;
  return clean(value) as Record<string, unknown>;
}

/**
 * Applies one verified webhook event.
 *
 * - The effect is the subscription's **current** state asked from the provider (outside any
 *   transaction), never the event's copy: events delivered late or out of order converge on the
 *   provider's latest state. Should another event be applied to the workspace while this one asked
 *   (concurrent deliveries), the provider is asked again, so an older answer never overwrites a newer.
 * - The workspace is the one whose customer the subscription belongs to: a workspace's customer is
 *   created by checkout, so what an event names (client reference, metadata) is only a cross-check and
 *   can never move another workspace's plan.
 * - The event is stored by id in the same transaction as its effect: a replay, or a concurrent
 *   duplicate (it waits on the id's unique index), is a no-op.
 * - A subscription that is not the workspace's live one changes it only when it is live itself (a
 *   replacement); an old, ended one never does.
 */
export async function handleBillingEvent(deps: CoreDeps, event: BillingEvent): Promise<WebhookOutcome> {
  const provider = providerOf(deps);
  const table = planLimitsOf(deps);
  const [seen] = await deps.db
    .select({ id: billingEvents.id })
    .from(billingEvents)
    .where(eq(billingEvents.id, event.id));
  if (seen) return 'duplicate';
  const subscriptionId = HANDLED.has(event.type) ? event.subscriptionId : undefined;
  for (let ask = 1; ; ask++) {
    const askedAt = await storeClock(deps.db);
    const state = subscriptionId
      ? await askProvider(deps, 'reading the subscription', () => provider.subscription(subscriptionId))
      : undefined;
    const outcome = await deps.db.transaction(async (tx) => {
      const [ws] = state?.customerId
        ? await tx
            .select()
            .from(workspaces)
            .where(eq(workspaces.stripeCustomerId, state.customerId))
            .for('update')
        : [];
      // Applied by another delivery after this one asked: this answer may be older than what is stored.
      if (ws?.billingStateAt && ws.billingStateAt > askedAt && ask < MAX_ASKS) return 'ask again' as const;
      const stored = await tx
        .insert(billingEvents)
        .values({
          id: event.id,
          type: event.type,
          workspaceId: ws?.id ?? null,
          stripeCreatedAt: event.created,
          payload: storablePayload(event.payload),
        })
        .onConflictDoNothing()
        .returning({ id: billingEvents.id });
      if (stored.length === 0) return 'duplicate';
      if (!state || !ws) {
        if (state)
          deps.logger.warn(
            { eventId: event.id, type: event.type },
            'billing event for a customer no workspace has',
          );
        return 'ignored';
      }
      const named = [event.workspaceId, state.workspaceId].filter((id): id is string => Boolean(id));
      if (named.some((id) => id !== ws.id) || (event.customerId && event.customerId !== state.customerId)) {
        deps.logger.warn(
          { workspaceId: ws.id, eventId: event.id, subscriptionId: state.id },
          "billing event ignored: it names another workspace than its customer's",
        );
        return 'ignored';
      }
      const replacing = ws.stripeSubscriptionId !== null && ws.stripeSubscriptionId !== state.id;
      if (replacing && !LIVE_STATUSES.has(state.status)) return 'ignored';
      if (replacing && LIVE_STATUSES.has(ws.subscriptionStatus ?? ''))
        deps.logger.error(
          { workspaceId: ws.id, previous: ws.stripeSubscriptionId, subscriptionId: state.id },
          'a workspace has two live subscriptions: the newer one applies; cancel the other in Stripe',
        );
      const { plan, status } = planOfState(state);
      const now = nowOf(deps);
      const effects = await applyPlan(tx, table, ws.id, plan, now, {
        stripeSubscriptionId: state.id,
        subscriptionStatus: status,
        currentPeriodStart: state.currentPeriodStart ?? null,
        currentPeriodEnd: state.currentPeriodEnd ?? null,
        billingStateAt: sql`clock_timestamp()` as unknown as Date,
      });
      deps.logger.info(
        { workspaceId: ws.id, event: event.type, eventId: event.id, plan, status, ...effects },
        PLAN_RANK[plan] < PLAN_RANK[ws.plan] ? 'plan downgraded' : 'billing state applied',
      );
      return 'applied';
    });
    if (outcome !== 'ask again') return outcome;
  }
}

/**
 * The operator's way to a plan without Stripe (`npm run cli -- plans set`): sets the plan of the
 * workspace the user owns (their personal one) with the same downgrade and upgrade effects.
 */
export async function setPlanByEmail(
  deps: { db: Executor; planLimits?: PlanTable; logger?: Logger; now?: () => Date },
  email: string,
  plan: PlanId,
): Promise<{
  workspaceId: string;
  workspaceName: string;
  previous: PlanId;
  paused: number;
  resumed: number;
}> {
  const now = nowOf(deps);
  const [owned] = await deps.db
    .select({ id: workspaces.id, name: workspaces.name, plan: workspaces.plan })
    .from(workspaces)
    .innerJoin(users, eq(users.id, workspaces.ownerUserId))
    .where(and(eq(users.email, email.trim().toLowerCase()), eq(workspaces.personal, true)));
  if (!owned) throw new DomainError('not_found', `No account has the email ${email}.`);
  const outcome = await deps.db.transaction(async (tx) => {
    await tx.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, owned.id)).for('update');
    return applyPlan(tx, planLimitsOf(deps), owned.id, plan, now);
  });
  return { workspaceId: owned.id, workspaceName: owned.name, previous: owned.plan, ...outcome };
}
