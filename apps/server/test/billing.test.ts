import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import Stripe from 'stripe';
import { apiKeys, billing } from '@aqs/core';
import { billingEvents } from '@aqs/db';
import type { Browser } from '../src/testing.ts';
import { signedInBrowser, startTestServer, uniqueEmail, type TestServer } from '../src/testing.ts';
import { startFakeStripe } from '../src/fake-stripe.ts';

const WEBHOOK_SECRET = 'whsec_test_secret_for_the_fake';
const stripe = new Stripe('sk_test_fake');

let fake: Awaited<ReturnType<typeof startFakeStripe>>;
let server: TestServer;
let unconfigured: TestServer;
let limited: TestServer;
let counter = 0;

beforeAll(async () => {
  fake = await startFakeStripe();
  const stripeEnv = {
    STRIPE_SECRET_KEY: 'sk_test_fake',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_PRICE_PRO: 'price_pro',
    STRIPE_PRICE_TEAM: 'price_team',
    STRIPE_API_BASE: fake.url,
  };
  server = await startTestServer({ env: { ...stripeEnv, RATE_LIMIT_PER_MINUTE: '1000' } });
  // Low limits: the webhook must be outside both of them.
  limited = await startTestServer({
    env: { ...stripeEnv, RATE_LIMIT_PER_MINUTE: '2', ANON_RATE_LIMIT_PER_MINUTE: '2' },
  });
  unconfigured = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
});

afterAll(async () => {
  await server?.close();
  await unconfigured?.close();
  await limited?.close();
  await fake?.close();
});

/** A Stripe event as Stripe would send it, with its raw bytes and a valid signature header. */
function signed(
  type: string,
  object: Record<string, unknown>,
  options: { secret?: string; timestamp?: number } = {},
) {
  counter += 1;
  const payload = JSON.stringify({
    id: `evt_test_${Date.now()}_${counter}`,
    object: 'event',
    api_version: '2026-10-28.endive',
    created: Math.floor(Date.now() / 1000),
    type,
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
  });
  const header = stripe.webhooks.generateTestHeaderString({
    payload,
    secret: options.secret ?? WEBHOOK_SECRET,
    ...(options.timestamp ? { timestamp: options.timestamp } : {}),
  });
  return { payload, header, id: (JSON.parse(payload) as { id: string }).id };
}

function deliver(target: TestServer, payload: string, header?: string, extra: Record<string, string> = {}) {
  return fetch(`${target.url}/api/v1/billing/webhook`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(header ? { 'stripe-signature': header } : {}),
      ...extra,
    },
    body: payload,
  });
}

async function storedEvent(id: string) {
  return server.store.db.select().from(billingEvents).where(eq(billingEvents.id, id));
}

async function workspaceOf(browser: Browser): Promise<string> {
  return ((await browser.get('/auth/me')).json.workspace as { id: string }).id;
}

describe('checkout and portal against the Stripe stand-in', () => {
  it('opens a subscription checkout for the workspace, reusing its customer, then the portal', async () => {
    const owner = await signedInBrowser(server, uniqueEmail('buyer'));
    const ws = await workspaceOf(owner);
    const first = await owner.post('/api/v1/billing/checkout', { plan: 'team' });
    expect(first.status).toBe(200);
    expect(first.json.url).toMatch(/^https:\/\/checkout\.stripe\.test\/pay\/cs_/);

    const customerCalls = fake.seen.filter(
      (r) => r.path === '/v1/customers' && r.form.get('metadata[workspace_id]') === ws,
    );
    expect(customerCalls).toHaveLength(1);
    const checkout = fake.seen
      .filter((r) => r.path === '/v1/checkout/sessions' && r.method === 'POST')
      .at(-1)!;
    expect(checkout.form.get('mode')).toBe('subscription');
    expect(checkout.form.get('client_reference_id')).toBe(ws);
    expect(checkout.form.get('line_items[0][price]')).toBe('price_team');
    expect(checkout.form.get('subscription_data[metadata][workspace_id]')).toBe(ws);
    expect(checkout.form.get('success_url')).toMatch(/\/billing\?checkout=success$/);
    const customerId = checkout.form.get('customer');
    expect(customerId).toMatch(/^cus_/);

    await owner.post('/api/v1/billing/checkout', { plan: 'pro' });
    const again = fake.seen.filter((r) => r.path === '/v1/checkout/sessions' && r.method === 'POST').at(-1)!;
    // The first checkout, still open, was expired: two checkouts can never both be paid.
    const sessions = [...fake.checkoutSessions.values()].filter((c) => c.customer === customerId);
    expect(sessions.map((c) => c.status)).toEqual(['expired', 'open']);
    expect(again.form.get('customer')).toBe(customerId);
    expect(again.form.get('line_items[0][price]')).toBe('price_pro');
    expect(
      fake.seen.filter((r) => r.path === '/v1/customers' && r.form.get('metadata[workspace_id]') === ws),
    ).toHaveLength(1);

    const portal = await owner.post('/api/v1/billing/portal', {});
    expect(portal.status).toBe(200);
    expect(portal.json.url).toMatch(/^https:\/\/billing\.stripe\.test\/session\//);
    const portalCall = fake.seen.filter((r) => r.path === '/v1/billing_portal/sessions').at(-1)!;
    expect(portalCall.form.get('customer')).toBe(customerId);
    expect(portalCall.form.get('return_url')).toMatch(/\/billing$/);
  });

  it('refuses a plan that is not sold, naming the field', async () => {
    const owner = await signedInBrowser(server, uniqueEmail('free-plan'));
    const res = await owner.post('/api/v1/billing/checkout', { plan: 'free' });
    expect(res.status).toBe(422);
    expect(res.json.errors[0].field).toBe('plan');
  });

  it('without Stripe configured: checkout, portal and the webhook answer 503 billing_not_configured', async () => {
    const owner = await signedInBrowser(unconfigured, uniqueEmail('selfhost'));
    for (const path of ['/api/v1/billing/checkout', '/api/v1/billing/portal']) {
      const res = await owner.post(path, path.endsWith('checkout') ? { plan: 'pro' } : {});
      expect(res.status).toBe(503);
      expect(res.json.code).toBe('billing_not_configured');
      expect(res.json.detail).toContain('plans set');
    }
    const event = signed('customer.subscription.updated', { id: 'sub_x', object: 'subscription' });
    const res = await deliver(unconfigured, event.payload, event.header);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { code: string }).code).toBe('billing_not_configured');
  });
});

describe('the webhook', () => {
  it('applies a signed checkout to the workspace, and a replay changes nothing', async () => {
    const owner = await signedInBrowser(server, uniqueEmail('subscriber'));
    const ws = await workspaceOf(owner);
    expect((await owner.post('/api/v1/billing/checkout', { plan: 'team' })).status).toBe(200);
    const customer = fake.seen
      .filter((r) => r.path === '/v1/checkout/sessions' && r.method === 'POST')
      .at(-1)!
      .form.get('customer')!;
    const now = Math.floor(Date.now() / 1000);
    fake.subscriptions.set('sub_paid_1', {
      id: 'sub_paid_1',
      customer,
      status: 'active',
      price: 'price_team',
      workspaceId: ws,
      periodStart: now,
      periodEnd: now + 30 * 86400,
    });
    const event = signed('checkout.session.completed', {
      id: 'cs_paid_1',
      object: 'checkout.session',
      client_reference_id: ws,
      customer,
      subscription: 'sub_paid_1',
      metadata: {},
    });
    const res = await deliver(server, event.payload, event.header);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true, outcome: 'applied' });
    const summary = (await owner.get('/api/v1/billing/summary')).json;
    expect(summary.plan).toBe('team');
    expect(summary.status).toBe('active');
    expect(Date.parse(summary.renews_at)).toBe((now + 30 * 86400) * 1000);
    expect(summary.seats.allowed).toBe(25);

    fake.subscriptions.get('sub_paid_1')!.status = 'canceled';
    const replay = await deliver(server, event.payload, event.header);
    expect(await replay.json()).toEqual({ received: true, outcome: 'duplicate' });
    expect((await owner.get('/api/v1/billing/summary')).json.plan).toBe('team');
  });

  it.each([
    [
      'a wrong secret',
      () => signed('customer.subscription.deleted', { id: 'sub_z' }, { secret: 'whsec_wrong' }),
    ],
    [
      'a stale timestamp (older than 300 s)',
      () =>
        signed(
          'customer.subscription.deleted',
          { id: 'sub_z' },
          { timestamp: Math.floor(Date.now() / 1000) - 600 },
        ),
    ],
  ])('refuses %s with 400 and stores nothing', async (_name, make) => {
    const event = make();
    const res = await deliver(server, event.payload, event.header);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/Stripe-Signature/);
    expect(await storedEvent(event.id)).toHaveLength(0);
  });

  it('refuses a missing signature, and a body re-serialized after signing', async () => {
    const event = signed('customer.subscription.deleted', { id: 'sub_z', object: 'subscription' });
    expect((await deliver(server, event.payload)).status).toBe(400);
    const reserialized = JSON.stringify(JSON.parse(event.payload), null, 2);
    expect((await deliver(server, reserialized, event.header)).status).toBe(400);
    expect(await storedEvent(event.id)).toHaveLength(0);
  });

  it('is outside the rate limits and the CSRF check: only the signature decides', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const event = signed('customer.subscription.updated', {
        id: 'sub_none',
        object: 'subscription',
        metadata: {},
      });
      const bad = i % 2 === 0 ? `${event.header}0` : event.header;
      statuses.push((await deliver(limited, event.payload, bad, { origin: 'https://evil.example' })).status);
    }
    expect(statuses).toEqual([400, 200, 400, 200, 400, 200, 400, 200]);
    // The limits are in force for everything else.
    const anonymous = await Promise.all([1, 2, 3].map(() => fetch(`${limited.url}/auth/me`)));
    expect(anonymous.map((r) => r.status)).toContain(429);
  });
});

describe('a removed member over HTTP', () => {
  it('loses the workspace on the next request, by cookie and by API key', async () => {
    const ownerEmail = uniqueEmail('team-owner');
    const owner = await signedInBrowser(server, ownerEmail);
    const ws = await workspaceOf(owner);
    await billing.setPlanByEmail({ db: server.store.db }, ownerEmail, 'team');

    const memberEmail = uniqueEmail('team-member');
    const member = await signedInBrowser(server, memberEmail);
    const verify = await server.lastEmail(memberEmail, /Confirm/);
    await member.post('/auth/email/verify', { token: /token=([\w-]+)/.exec(verify!.text)![1] });
    expect(
      (await owner.post('/api/v1/workspace/invites', { email: memberEmail, role: 'member' })).status,
    ).toBe(201);
    const mail = await server.lastEmail(memberEmail, /invited/);
    expect(mail!.text).toContain('/invite?token=');
    const accepted = await member.post('/api/v1/workspace/invites/accept', {
      token: /token=([\w-]+)/.exec(mail!.text)![1],
    });
    expect(accepted.status).toBe(200);
    expect(await workspaceOf(member)).toBe(ws);
    const { key } = await apiKeys.createApiKey({ db: server.store.db }, { email: memberEmail });
    const byKey = () => fetch(`${server.url}/api/v1/connections`, { headers: { 'x-api-key': key } });
    expect((await byKey()).status).toBe(200);

    const memberId = ((await member.get('/auth/me')).json.user as { id: string }).id;
    expect((await owner.request('DELETE', `/api/v1/workspace/members/${memberId}`)).status).toBe(200);

    expect(await workspaceOf(member)).not.toBe(ws);
    expect((await byKey()).status).toBe(401);
    const roster = (await owner.get('/api/v1/workspace')).json;
    expect(roster.members.map((m: { email: string }) => m.email)).toEqual([ownerEmail]);
  });
});
