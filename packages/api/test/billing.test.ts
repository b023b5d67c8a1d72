import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import {
  billing,
  parsePlanOverrides,
  planLimitsOf,
  type BillingEvent,
  type BillingProvider,
  type RunDeps,
  type SubscriptionState,
} from '@aqs/core';
import { billingEvents, connections, workspaces } from '@aqs/db';
import type { PaidPlanId } from '@aqs/contracts';
import {
  again,
  closePools,
  demoConnectionId,
  harness,
  problemOf,
  uniqueEmail,
  verifiedSignedIn,
  type SignedIn,
} from './harness.ts';

/** The payment provider as the service sees it, held in memory: what a test sets is Stripe's current state. */
function fakeProvider() {
  const subscriptions = new Map<string, SubscriptionState>();
  const customers = new Map<string, string>();
  const calls = {
    customers: 0,
    checkouts: [] as { customerId: string; workspaceId: string; plan: PaidPlanId }[],
  };
  /** When set, a subscription read takes Stripe's state at once but answers only when the gate opens. */
  const control: { gate?: Promise<void>; failing?: boolean } = {};
  const provider: BillingProvider = {
    async createCustomer({ workspaceId }) {
      calls.customers += 1;
      if (control.failing) throw new Error('connect ECONNREFUSED 127.0.0.1:443');
      // Slow enough for two concurrent checkouts to overlap; one customer per workspace, as Stripe's
      // idempotency key (one per workspace) gives.
      await new Promise((resolve) => setTimeout(resolve, 30));
      const id = customers.get(workspaceId) ?? `cus_${workspaceId}`;
      customers.set(workspaceId, id);
      return id;
    },
    async checkoutUrl(input) {
      calls.checkouts.push(input);
      return `https://checkout.example.test/c/${input.workspaceId}`;
    },
    async portalUrl(input) {
      return `https://billing.example.test/p/${input.customerId}`;
    },
    async subscription(id) {
      if (control.failing) throw new Error('connect ECONNREFUSED 127.0.0.1:443');
      const now = subscriptions.get(id);
      const snapshot = now ? { ...now } : undefined;
      if (control.gate) await control.gate;
      return snapshot;
    },
  };
  return { provider, subscriptions, calls, control };
}

let base: RunDeps;
let fake: ReturnType<typeof fakeProvider>;
let deps: RunDeps;
let counter = 0;

beforeAll(async () => {
  base = (await harness()).deps;
  fake = fakeProvider();
  deps = { ...base, billing: fake.provider };
});
afterAll(closePools);

async function owner(): Promise<SignedIn> {
  return again(await verifiedSignedIn(uniqueEmail('payer')), { deps });
}

/** An owner whose workspace has its Stripe customer (`cus_<workspace id>`), as its first checkout makes. */
async function customer(): Promise<SignedIn> {
  const payer = await owner();
  await base.db
    .update(workspaces)
    .set({ stripeCustomerId: `cus_${payer.principal.workspaceId}` })
    .where(eq(workspaces.id, payer.principal.workspaceId));
  return payer;
}

function event(
  type: string,
  workspaceId: string,
  subscriptionId: string,
  createdSecondsAgo = 0,
): BillingEvent {
  counter += 1;
  return {
    id: `evt_${Date.now()}_${counter}`,
    type,
    created: new Date(Date.now() - createdSecondsAgo * 1000),
    workspaceId,
    customerId: undefined,
    subscriptionId,
    payload: { id: subscriptionId },
  };
}

function subscription(workspaceId: string, plan: PaidPlanId, status: string, id = `sub_${workspaceId}`) {
  const state: SubscriptionState = {
    id,
    customerId: `cus_${workspaceId}`,
    status,
    plan,
    workspaceId,
    currentPeriodStart: new Date('2026-11-01T00:00:00Z'),
    currentPeriodEnd: new Date('2026-12-01T00:00:00Z'),
  };
  fake.subscriptions.set(id, state);
  return state;
}

async function planOf(workspaceId: string) {
  const [ws] = await base.db.select().from(workspaces).where(eq(workspaces.id, workspaceId));
  return { plan: ws!.plan, status: ws!.subscriptionStatus };
}

describe('billing summary', () => {
  it("shows the plan, this month's usage against each limit, connection slots and seats", async () => {
    const payer = await owner();
    const connectionId = await demoConnectionId(payer.caller);
    await payer.caller.runs.run({ question: 'how many orders per status', connection_id: connectionId });
    const summary = await payer.caller.billing.summary({});
    expect(summary.plan).toBe('free');
    expect(summary.status).toBe('none');
    expect(summary.usage.questions).toEqual({ used: 1, limit: 200 });
    expect(summary.usage.schema_analyses).toEqual({ used: 0, limit: 5 });
    expect(summary.usage.connections).toEqual({ used: 0, limit: 3 });
    expect(summary.seats).toEqual({ used: 1, pending: 0, allowed: 1 });
    expect(summary.limits.team.seats).toBe(25);
    expect(new Date(summary.period_start).getUTCDate()).toBe(1);
    expect(summary.billing_configured).toBe(true);
    expect(summary.can_manage).toBe(true);
    const unconfigured = await again(payer);
    expect((await unconfigured.caller.billing.summary({})).billing_configured).toBe(false);
  });

  it("counts against the operator's limits when they are overridden", async () => {
    const parsed = parsePlanOverrides({ free: { questions_per_month: 1 } });
    if (!('table' in parsed)) throw new Error('the overrides should parse');
    const tight = await again(await verifiedSignedIn(uniqueEmail('tight')), {
      deps: { ...deps, planLimits: parsed.table },
    });
    const connectionId = await demoConnectionId(tight.caller);
    await tight.caller.runs.run({ question: 'how many orders per status', connection_id: connectionId });
    const refused = await problemOf(
      tight.caller.runs.run({ question: 'how many orders per status', connection_id: connectionId }),
    );
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('quota_questions_exceeded');
    expect(refused.body.detail).toMatch(/1 questions a month/);
    expect((await tight.caller.billing.summary({})).usage.questions).toEqual({ used: 1, limit: 1 });
  });

  it('refuses operator overrides that are not limits, naming the field', () => {
    const parsed = parsePlanOverrides({ team: { seats: 0, widgets: 3 }, gold: {} });
    if (!('errors' in parsed)) throw new Error('the overrides should be refused');
    const fields = parsed.errors.map((e) => e.field);
    expect(fields).toContain('team.seats');
    expect(fields).toContain('team');
    expect(fields).toContain('(file)');
    expect(parsed.errors.find((e) => e.field === 'team')?.message).toMatch(/widgets/);
  });
});

describe('checkout and portal', () => {
  it('without a payment provider: 503 billing_not_configured naming the CLI route', async () => {
    const payer = await again(await verifiedSignedIn(uniqueEmail('selfhost')));
    for (const call of [payer.caller.billing.checkout({ plan: 'pro' }), payer.caller.billing.portal({})]) {
      const problem = await problemOf(call);
      expect(problem.status).toBe(503);
      expect(problem.body.code).toBe('billing_not_configured');
      expect(problem.body.detail).toContain('npm run cli -- plans set');
    }
  });

  it('stores one customer (even for concurrent checkouts) and names the workspace', async () => {
    const payer = await owner();
    const [a, b] = await Promise.all([
      payer.caller.billing.checkout({ plan: 'team' }),
      payer.caller.billing.checkout({ plan: 'pro' }),
    ]);
    expect(a.url).toContain(payer.principal.workspaceId);
    expect(b.url).toContain(payer.principal.workspaceId);
    const mine = fake.calls.checkouts.filter((c) => c.workspaceId === payer.principal.workspaceId);
    expect(new Set(mine.map((c) => c.customerId))).toEqual(new Set([`cus_${payer.principal.workspaceId}`]));
    expect(mine.map((c) => c.plan).sort()).toEqual(['pro', 'team']);
    const [ws] = await base.db
      .select()
      .from(workspaces)
      .where(eq(workspaces.id, payer.principal.workspaceId));
    expect(ws!.stripeCustomerId).toBe(`cus_${payer.principal.workspaceId}`);
    const before = fake.calls.customers;
    await payer.caller.billing.checkout({ plan: 'pro' });
    expect(fake.calls.customers).toBe(before);
    const portal = await payer.caller.billing.portal({});
    expect(portal.url).toContain(`cus_${payer.principal.workspaceId}`);
  });

  it('answers 503 billing_provider_unavailable when Stripe does not answer, and stores nothing', async () => {
    const payer = await owner();
    fake.control.failing = true;
    try {
      const problem = await problemOf(payer.caller.billing.checkout({ plan: 'pro' }));
      expect(problem.status).toBe(503);
      expect(problem.body.code).toBe('billing_provider_unavailable');
      expect(problem.body.detail).not.toContain('ECONNREFUSED');
    } finally {
      fake.control.failing = false;
    }
    const [ws] = await base.db
      .select()
      .from(workspaces)
      .where(eq(workspaces.id, payer.principal.workspaceId));
    expect(ws!.stripeCustomerId).toBeNull();
  });

  it('the portal needs a billing account, and a live subscription is changed there, not by a new checkout', async () => {
    const payer = await owner();
    expect((await problemOf(payer.caller.billing.portal({}))).body.code).toBe('no_billing_account');
    await payer.caller.billing.checkout({ plan: 'pro' });
    subscription(payer.principal.workspaceId, 'pro', 'active');
    await billing.handleBillingEvent(
      deps,
      event(
        'customer.subscription.created',
        payer.principal.workspaceId,
        `sub_${payer.principal.workspaceId}`,
      ),
    );
    const problem = await problemOf(payer.caller.billing.checkout({ plan: 'team' }));
    expect(problem.status).toBe(409);
    expect(problem.body.code).toBe('subscription_exists');
  });
});

describe('webhook events', () => {
  it('a replayed event is a no-op', async () => {
    const payer = await customer();
    const ws = payer.principal.workspaceId;
    subscription(ws, 'pro', 'active');
    const created = event('customer.subscription.created', ws, `sub_${ws}`);
    expect(await billing.handleBillingEvent(deps, created)).toBe('applied');
    // Stripe's state moves on; the old delivery comes again: nothing happens.
    subscription(ws, 'pro', 'canceled');
    expect(await billing.handleBillingEvent(deps, created)).toBe('duplicate');
    expect(await planOf(ws)).toEqual({ plan: 'pro', status: 'active' });
    const stored = await base.db.select().from(billingEvents).where(eq(billingEvents.id, created.id));
    expect(stored).toHaveLength(1);
  });

  it('concurrent duplicate deliveries apply once', async () => {
    const payer = await customer();
    const ws = payer.principal.workspaceId;
    subscription(ws, 'team', 'active');
    const once = event('checkout.session.completed', ws, `sub_${ws}`);
    const outcomes = await Promise.all([1, 2, 3].map(() => billing.handleBillingEvent(deps, { ...once })));
    expect(outcomes.sort()).toEqual(['applied', 'duplicate', 'duplicate']);
  });

  it('events out of order converge on the latest state and never roll back', async () => {
    const payer = await customer();
    const ws = payer.principal.workspaceId;
    const id = `sub_${ws}`;
    // Stripe's history: created as pro, upgraded to team. The upgrade's event arrives first.
    const createdEvent = event('customer.subscription.created', ws, id, 60);
    const updatedEvent = event('customer.subscription.updated', ws, id, 10);
    subscription(ws, 'team', 'active');
    await billing.handleBillingEvent(deps, updatedEvent);
    await billing.handleBillingEvent(deps, createdEvent);
    expect(await planOf(ws)).toEqual({ plan: 'team', status: 'active' });

    // Cancelled; a late "updated" from before the cancellation then arrives.
    subscription(ws, 'team', 'canceled');
    await billing.handleBillingEvent(deps, event('customer.subscription.deleted', ws, id));
    await billing.handleBillingEvent(deps, event('customer.subscription.updated', ws, id, 30));
    expect(await planOf(ws)).toEqual({ plan: 'free', status: 'canceled' });
  });

  it("a failed payment is Stripe's past_due: the plan stays; a failure delivered after recovery changes nothing", async () => {
    const payer = await customer();
    const ws = payer.principal.workspaceId;
    subscription(ws, 'pro', 'active');
    await billing.handleBillingEvent(deps, event('checkout.session.completed', ws, `sub_${ws}`));
    subscription(ws, 'pro', 'past_due');
    const failed = event('invoice.payment_failed', ws, `sub_${ws}`);
    await billing.handleBillingEvent(deps, failed);
    expect(await planOf(ws)).toEqual({ plan: 'pro', status: 'past_due' });
    expect((await (await again(payer, { deps })).caller.billing.summary({})).status).toBe('past_due');
    // Paid on Stripe's retry; a redelivered failure event from before then arrives late.
    subscription(ws, 'pro', 'active');
    await billing.handleBillingEvent(deps, { ...event('invoice.payment_failed', ws, `sub_${ws}`, 3600) });
    expect(await planOf(ws)).toEqual({ plan: 'pro', status: 'active' });
    // Unpaid for good: free until paid.
    subscription(ws, 'pro', 'unpaid');
    await billing.handleBillingEvent(deps, event('customer.subscription.updated', ws, `sub_${ws}`));
    expect(await planOf(ws)).toEqual({ plan: 'free', status: 'past_due' });
  });

  it('an answer read before a concurrent delivery applied a newer state is asked again, never applied over it', async () => {
    const payer = await customer();
    const ws = payer.principal.workspaceId;
    subscription(ws, 'pro', 'active');
    let open!: () => void;
    fake.control.gate = new Promise<void>((resolve) => (open = resolve));
    const slow = billing.handleBillingEvent(deps, event('customer.subscription.created', ws, `sub_${ws}`));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Stripe moves on, and a later delivery reads and applies the newer state first.
    subscription(ws, 'team', 'active');
    delete fake.control.gate;
    await billing.handleBillingEvent(deps, event('customer.subscription.updated', ws, `sub_${ws}`));
    expect(await planOf(ws)).toEqual({ plan: 'team', status: 'active' });
    open();
    expect(await slow).toBe('applied');
    expect(await planOf(ws)).toEqual({ plan: 'team', status: 'active' });
  });

  it('Stripe unreachable: 503 billing_provider_unavailable, the event is not stored, and its retry applies it', async () => {
    const payer = await customer();
    const ws = payer.principal.workspaceId;
    subscription(ws, 'team', 'active');
    const delivery = event('customer.subscription.created', ws, `sub_${ws}`);
    fake.control.failing = true;
    try {
      const error = await billing.handleBillingEvent(deps, delivery).then(
        () => undefined,
        (e: unknown) => e as { code?: string },
      );
      expect(error?.code).toBe('billing_provider_unavailable');
    } finally {
      fake.control.failing = false;
    }
    expect(await base.db.select().from(billingEvents).where(eq(billingEvents.id, delivery.id))).toHaveLength(
      0,
    );
    expect(await billing.handleBillingEvent(deps, delivery)).toBe('applied');
    expect(await planOf(ws)).toEqual({ plan: 'team', status: 'active' });
  });

  it('a downgrade pauses the newest connections beyond the slots (nothing deleted); an upgrade resumes them', async () => {
    const payer = await customer();
    const ws = payer.principal.workspaceId;
    subscription(ws, 'pro', 'active');
    await billing.handleBillingEvent(deps, event('customer.subscription.created', ws, `sub_${ws}`));
    const pro = await again(payer, { deps });
    const config = {
      cluster_url: 'http://127.0.0.1:9',
      api_key_id: 'read-key',
      api_key_secret: 'read-secret',
      allowed_indices: ['logs'],
    };
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      const c = await pro.caller.connections.create({
        name: `conn ${i}`,
        dialect: 'elasticsearch',
        auth_mode: 'api_key',
        config,
      });
      made.push(c.id);
    }
    const freeSlots = planLimitsOf(deps).free.connections;

    subscription(ws, 'pro', 'canceled');
    await billing.handleBillingEvent(deps, event('customer.subscription.deleted', ws, `sub_${ws}`));
    const rows = await base.db.select().from(connections).where(eq(connections.workspaceId, ws));
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(made.every((id) => byId.has(id))).toBe(true);
    expect(made.filter((id) => byId.get(id)!.paused)).toEqual(made.slice(freeSlots));
    expect(rows.find((r) => r.isDemo)?.paused).toBe(false);

    // Over the slots, a paused connection cannot be resumed by hand until one is freed.
    const free = await again(payer, { deps });
    const refused = await problemOf(free.caller.connections.paused({ id: made[4]!, paused: false }));
    expect(refused.body.code).toBe('quota_connections_exceeded');

    subscription(ws, 'pro', 'active', `sub_${ws}_2`);
    await billing.handleBillingEvent(deps, event('checkout.session.completed', ws, `sub_${ws}_2`));
    const after = await base.db.select().from(connections).where(eq(connections.workspaceId, ws));
    expect(after.filter((r) => r.paused)).toHaveLength(0);
  });

  it("never moves a workspace's plan with another customer's subscription, whatever the event names", async () => {
    const victim = await owner();
    const victimWithCustomer = await customer();
    const payer = await customer();
    subscription(payer.principal.workspaceId, 'team', 'active', 'sub_payer');
    fake.subscriptions.set('sub_payer', { ...fake.subscriptions.get('sub_payer')!, workspaceId: undefined });
    for (const target of [victim, victimWithCustomer]) {
      const ws = target.principal.workspaceId;
      for (const type of ['checkout.session.completed', 'customer.subscription.updated'])
        expect(await billing.handleBillingEvent(deps, event(type, ws, 'sub_payer'))).toBe('ignored');
      expect(await planOf(ws)).toEqual({ plan: 'free', status: null });
      const [row] = await base.db.select().from(workspaces).where(eq(workspaces.id, ws));
      expect(row!.stripeCustomerId).not.toBe(`cus_${payer.principal.workspaceId}`);
    }
    expect(await planOf(payer.principal.workspaceId)).toEqual({ plan: 'free', status: null });
  });

  it('an event for a workspace it cannot place, or of a kind not handled, is recorded and ignored', async () => {
    expect(
      await billing.handleBillingEvent(deps, event('customer.subscription.updated', 'wsp_nope', 'sub_x')),
    ).toBe('ignored');
    const payer = await customer();
    expect(
      await billing.handleBillingEvent(deps, event('charge.refunded', payer.principal.workspaceId, 'sub_y')),
    ).toBe('ignored');
    expect(await planOf(payer.principal.workspaceId)).toEqual({ plan: 'free', status: null });
  });
});
