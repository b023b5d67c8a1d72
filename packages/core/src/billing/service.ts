import { and, count, desc, eq, inArray } from 'drizzle-orm';
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
  const [active] = await deps.db
    .select({ n: count() })
    .from(connections)
    .where(
      and(eq(connections.workspaceId, ws.id), eq(connections.paused, false), eq(connections.isDemo, false)),
    );
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
 * The workspace's customer at the provider: created the first time (under the workspace row's lock,
 * so two concurrent checkouts make one customer) and reused afterwards.
 */
async function customerOf(deps: CoreDeps, provider: BillingProvider, principal: Principal): Promise<string> {
  return deps.db.transaction(async (tx) => {
    const [ws] = await tx
      .select()
      .from(workspaces)
      .where(eq(workspaces.id, principal.workspaceId))
      .for('update');
    if (!ws) throw new DomainError('unauthorized', 'Your workspace no longer exists. Sign in again.');
    if (ws.stripeCustomerId) return ws.stripeCustomerId;
    const customerId = await provider.createCustomer({
      workspaceId: ws.id,
      email: principal.email,
      name: ws.name,
    });
    await tx
      .update(workspaces)
      .set({ stripeCustomerId: customerId, updatedAt: nowOf(deps) })
      .where(eq(workspaces.id, ws.id));
    return customerId;
  });
}

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
  if (ws?.subscriptionId && ws.status !== 'canceled') {
    throw new DomainError(
      'conflict',
      `This workspace already has a ${ws.plan} subscription. Change or cancel it in the billing portal (POST /api/v1/billing/portal).`,
      { code: 'subscription_exists' },
    );
  }
  const customerId = await customerOf(deps, provider, principal);
  const url = await provider.checkoutUrl({
    customerId,
    workspaceId: principal.workspaceId,
    plan,
    successUrl: appLink(deps, 'billing?checkout=success'),
    cancelUrl: appLink(deps, 'billing?checkout=cancelled'),
  });
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

/** The plan a subscription state gives: its price's plan while it is live (a failed payment keeps it for the grace period). */
function planOfState(state: SubscriptionState): { plan: PlanId; status: SubscriptionStatus } {
  const live =
    state.status === 'active' ||
    state.status === 'trialing' ||
    state.status === 'past_due' ||
    state.status === 'unpaid';
  const status: SubscriptionStatus =
    state.status === 'active' || state.status === 'trialing'
      ? state.status
      : state.status === 'past_due' || state.status === 'unpaid'
        ? 'past_due'
        : state.status === 'canceled' || state.status === 'incomplete_expired'
          ? 'canceled'
          : 'none';
  return { plan: live && state.plan ? state.plan : 'free', status };
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
    .where(
      and(
        eq(connections.workspaceId, workspaceId),
        eq(connections.paused, false),
        eq(connections.isDemo, false),
      ),
    )
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

/**
 * Applies one verified webhook event. The event is stored by id in the same transaction as its
 * effect, so a replay (or a concurrent duplicate delivery, which waits on the id's unique index) is a
 * no-op. The effect is the subscription's current state asked from the provider, never the event's
 * copy, under the workspace row's lock: events delivered out of order or late never roll a
 * subscription back.
 */
export async function handleBillingEvent(deps: CoreDeps, event: BillingEvent): Promise<WebhookOutcome> {
  const provider = providerOf(deps);
  const now = nowOf(deps);
  const table = planLimitsOf(deps);
  return deps.db.transaction(async (tx) => {
    const workspaceId = await workspaceOfEvent(tx, event);
    const stored = await tx
      .insert(billingEvents)
      .values({
        id: event.id,
        type: event.type,
        workspaceId: workspaceId ?? null,
        stripeCreatedAt: event.created,
        payload: event.payload,
      })
      .onConflictDoNothing()
      .returning({ id: billingEvents.id });
    if (stored.length === 0) return 'duplicate';
    if (!HANDLED.has(event.type) || !workspaceId) return 'ignored';
    const [ws] = await tx.select().from(workspaces).where(eq(workspaces.id, workspaceId)).for('update');
    if (!ws) return 'ignored';
    const subscriptionId = event.subscriptionId ?? ws.stripeSubscriptionId;
    if (!subscriptionId) return 'ignored';
    // A subscription other than the workspace's live one (an old, replaced one) never changes it.
    if (
      ws.stripeSubscriptionId &&
      ws.stripeSubscriptionId !== subscriptionId &&
      ws.subscriptionStatus !== 'canceled' &&
      event.type !== 'checkout.session.completed'
    )
      return 'ignored';
    const state = await provider.subscription(subscriptionId);
    if (!state) return 'ignored';
    // A workspace's plan follows only its own customer's subscriptions, whatever an event names.
    if (
      (ws.stripeCustomerId && state.customerId !== ws.stripeCustomerId) ||
      (state.workspaceId && state.workspaceId !== ws.id)
    ) {
      deps.logger.warn(
        { workspaceId: ws.id, eventId: event.id, subscriptionId: state.id },
        'billing event ignored: the subscription belongs to another customer or workspace',
      );
      return 'ignored';
    }
    const { plan, status } = planOfState(state);
    const effective = event.type === 'invoice.payment_failed' && status === 'active' ? 'past_due' : status;
    const outcome = await applyPlan(tx, table, ws.id, plan, now, {
      stripeCustomerId: ws.stripeCustomerId ?? state.customerId,
      stripeSubscriptionId: state.id,
      subscriptionStatus: effective,
      currentPeriodStart: state.currentPeriodStart ?? null,
      currentPeriodEnd: state.currentPeriodEnd ?? null,
      billingStateAt: event.created,
    });
    deps.logger.info(
      { workspaceId: ws.id, event: event.type, eventId: event.id, plan, status: effective, ...outcome },
      PLAN_RANK[plan] < PLAN_RANK[ws.plan] ? 'plan downgraded' : 'billing state applied',
    );
    return 'applied';
  });
}

/** The workspace an event is about: named by the event, else found by its customer id. */
async function workspaceOfEvent(tx: Executor, event: BillingEvent): Promise<string | undefined> {
  if (event.workspaceId) {
    const [ws] = await tx
      .select({ id: workspaces.id })
      .from(workspaces)
      .where(eq(workspaces.id, event.workspaceId));
    if (ws) return ws.id;
  }
  if (!event.customerId) return undefined;
  const [ws] = await tx
    .select({ id: workspaces.id })
    .from(workspaces)
    .where(eq(workspaces.stripeCustomerId, event.customerId));
  return ws?.id;
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
