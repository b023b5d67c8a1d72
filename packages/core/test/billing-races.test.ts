import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { desc, eq } from 'drizzle-orm';
import { newId, outboxEmails, users, workspaceMembers, workspaces } from '@aqs/db';
import { createTestStore, testStoreKinds, type TestStore } from '@aqs/db/testing';
import { createSecretBox } from '../src/secret-box.ts';
import { defaultAuthSettings, type CoreDeps } from '../src/ports.ts';
import type { Principal } from '../src/principal.ts';
import type { BillingEvent, BillingProvider, SubscriptionState } from '../src/billing/provider.ts';
import { handleBillingEvent, startCheckout } from '../src/billing/service.ts';
import { acceptInvite, createInvite } from '../src/workspaces/service.ts';
import { PLAN_LIMITS } from '../src/limits/plans.ts';

// Requests racing for one seat, one invite, one event and one customer: on PostgreSQL (where the row
// locks are what keeps them apart; PGlite runs one transaction at a time) and on PGlite.
describe.each(await testStoreKinds())('billing and workspace races on %s', (kind) => {
  let store: TestStore;
  let deps: CoreDeps;
  const subscriptions = new Map<string, SubscriptionState>();
  let customersMade = 0;

  const provider: BillingProvider = {
    // No idempotency here: each call makes a new customer, so only the store can keep one.
    async createCustomer() {
      customersMade += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return `cus_race_${customersMade}_${Math.random().toString(36).slice(2, 8)}`;
    },
    checkoutUrl: async ({ customerId }) => `https://checkout.example.test/${customerId}`,
    portalUrl: async ({ customerId }) => `https://portal.example.test/${customerId}`,
    subscription: async (id) => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      return subscriptions.get(id);
    },
  };

  beforeAll(async () => {
    store = await createTestStore(kind);
    deps = {
      db: store.db,
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      mail: { kind: 'log', send: async () => undefined },
      auth: { ...defaultAuthSettings, appUrl: 'http://localhost' },
      dataSources: {
        secrets: createSecretBox('a-test-master-key-of-at-least-32-characters'),
        allowPrivateNetworks: true,
        allowInsecureTransport: true,
        requestTimeoutMs: 30_000,
        demoDatabase: () => Promise.reject(new Error('no demo')),
      },
      billing: provider,
      planLimits: { ...PLAN_LIMITS, team: { ...PLAN_LIMITS.team, seats: 2 } },
    };
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  async function person(plan: 'free' | 'team' = 'team'): Promise<Principal> {
    const userId = newId('usr');
    const workspaceId = newId('wks');
    const email = `${userId}@example.com`;
    await store.db
      .insert(users)
      .values({ id: userId, email, passwordHash: 'x', emailVerifiedAt: new Date() });
    await store.db
      .insert(workspaces)
      .values({ id: workspaceId, name: 'W', ownerUserId: userId, plan, personal: true });
    await store.db.insert(workspaceMembers).values({ workspaceId, userId, role: 'owner' });
    return { userId, email, workspaceId, role: 'owner', plan, authMethod: 'session' };
  }

  async function tokenSentTo(email: string): Promise<string> {
    const [mail] = await store.db
      .select()
      .from(outboxEmails)
      .where(eq(outboxEmails.toAddress, email))
      .orderBy(desc(outboxEmails.createdAt))
      .limit(1);
    return /token=([\w-]+)/.exec(mail!.textBody)![1]!;
  }

  it('four invites racing for the last seat: one is sent', async () => {
    const owner = await person();
    const outcomes = await Promise.allSettled(
      [1, 2, 3, 4].map((n) =>
        createInvite(deps, owner, { email: `race${n}-${owner.userId}@example.com`, role: 'member' }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes)
      if (o.status === 'rejected') expect((o.reason as { code?: string }).code).toBe('quota_seats_exceeded');
  });

  it('one invite accepted by two requests at once: one joins, the other is told it was used', async () => {
    const owner = await person();
    const invitee = await person('free');
    await createInvite(deps, owner, { email: invitee.email, role: 'member' });
    const token = await tokenSentTo(invitee.email);
    const outcomes = await Promise.allSettled([1, 2, 3].map(() => acceptInvite(deps, invitee, token)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes)
      if (o.status === 'rejected') expect((o.reason as Error).message).toMatch(/already used/);
    const members = await store.db
      .select()
      .from(workspaceMembers)
      .where(eq(workspaceMembers.workspaceId, owner.workspaceId));
    expect(members).toHaveLength(2);
  });

  it('an invite re-sent while it is being accepted: both finish, no deadlock', async () => {
    for (let round = 0; round < 5; round++) {
      const owner = await person();
      const invitee = await person('free');
      await createInvite(deps, owner, { email: invitee.email, role: 'member' });
      const token = await tokenSentTo(invitee.email);
      const [accepted, resent] = await Promise.allSettled([
        acceptInvite(deps, invitee, token),
        createInvite(deps, owner, { email: invitee.email, role: 'member' }),
      ]);
      // Either order is fine; a deadlock or a 500 is not.
      for (const o of [accepted, resent])
        if (o.status === 'rejected')
          expect((o.reason as { kind?: string }).kind, String(o.reason)).toMatch(/bad_request|conflict/);
    }
  });

  it('two checkouts at once store one customer, and both use it', async () => {
    const owner = await person('free');
    const urls = await Promise.all([startCheckout(deps, owner, 'pro'), startCheckout(deps, owner, 'team')]);
    const [ws] = await store.db.select().from(workspaces).where(eq(workspaces.id, owner.workspaceId));
    expect(ws!.stripeCustomerId).toMatch(/^cus_race_/);
    expect(urls.map((u) => u.url)).toEqual([
      `https://checkout.example.test/${ws!.stripeCustomerId}`,
      `https://checkout.example.test/${ws!.stripeCustomerId}`,
    ]);
  });

  it('the same event delivered three times at once applies once', async () => {
    const owner = await person('free');
    const customerId = `cus_${owner.workspaceId}`;
    await store.db
      .update(workspaces)
      .set({ stripeCustomerId: customerId })
      .where(eq(workspaces.id, owner.workspaceId));
    subscriptions.set(`sub_${owner.workspaceId}`, {
      id: `sub_${owner.workspaceId}`,
      customerId,
      status: 'active',
      plan: 'team',
      workspaceId: owner.workspaceId,
      currentPeriodStart: undefined,
      currentPeriodEnd: undefined,
    });
    const event: BillingEvent = {
      id: `evt_${owner.workspaceId}`,
      type: 'customer.subscription.created',
      created: new Date(),
      workspaceId: owner.workspaceId,
      customerId,
      subscriptionId: `sub_${owner.workspaceId}`,
      payload: { note: 'a NUL \u0000 in customer text is stored without it' },
    };
    const outcomes = await Promise.all([1, 2, 3].map(() => handleBillingEvent(deps, { ...event })));
    expect(outcomes.sort()).toEqual(['applied', 'duplicate', 'duplicate']);
    const [ws] = await store.db.select().from(workspaces).where(eq(workspaces.id, owner.workspaceId));
    expect(ws!.plan).toBe('team');
  });
});
