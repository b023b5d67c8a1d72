import { eq } from 'drizzle-orm';
import { billing } from '@aqs/core';
import { users, workspaceMembers } from '@aqs/db';
import { FAKE_STRIPE_KEY, startFakeStripe, stripeSignature } from '@aqs/server/fake-stripe';
import { signedInClient, startBenchServer } from './bench-server.ts';
import { median, ratio } from './processes.ts';

const ROUNDS = 200;
const MEMBERS = 24;
const WEBHOOK_SECRET = 'whsec_bench';

/**
 * What plans, billing and workspaces add to a request: the billing summary (usage counters,
 * connection slots, seats) and the owner's roster of a 25-seat workspace, against GET /auth/me (the
 * principal and one read) as the baseline; and a Stripe webhook delivery applied (signature, the
 * subscription asked from the Stripe stand-in, the plan and its effects in one transaction) and
 * replayed (a no-op), against the same baseline. Medians of 200 sequential requests, in the same run.
 */
export async function benchBilling(): Promise<void> {
  const stripe = await startFakeStripe();
  const { server, close } = await startBenchServer('billing', {
    STRIPE_SECRET_KEY: FAKE_STRIPE_KEY,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_PRICE_PRO: 'price_pro',
    STRIPE_PRICE_TEAM: 'price_team',
    STRIPE_API_BASE: stripe.url,
  });
  try {
    const call = await signedInClient(server.url, 'owner@bench.example');
    const me = await call<{ workspace: { id: string } }>('GET', '/auth/me');
    const workspaceId = me.workspace.id;
    await billing.setPlanByEmail(server.deps, 'owner@bench.example', 'team');
    for (let i = 0; i < MEMBERS; i++) {
      await signedInClient(server.url, `member${i}@bench.example`);
      const [user] = await server.deps.db
        .select({ id: users.id })
        .from(users)
        .where(eq(users.email, `member${i}@bench.example`));
      await server.deps.db.insert(workspaceMembers).values({ workspaceId, userId: user!.id, role: 'member' });
    }
    // The workspace's Stripe customer comes from its first checkout.
    await call('POST', '/api/v1/billing/checkout', { plan: 'pro' });
    const customer = stripe.seen
      .filter((r) => r.path === '/v1/checkout/sessions' && r.method === 'POST')
      .at(-1)!
      .form.get('customer')!;
    const now = Math.floor(Date.now() / 1000);
    stripe.subscriptions.set('sub_bench', {
      id: 'sub_bench',
      customer,
      status: 'active',
      price: 'price_team',
      workspaceId,
      periodStart: now,
      periodEnd: now + 30 * 86400,
    });

    let counter = 0;
    const deliver = async (payload?: string) => {
      const body =
        payload ??
        JSON.stringify({
          id: `evt_bench_${++counter}`,
          object: 'event',
          type: 'customer.subscription.updated',
          created: now,
          data: {
            object: {
              id: 'sub_bench',
              object: 'subscription',
              customer,
              metadata: { workspace_id: workspaceId },
            },
          },
        });
      const res = await fetch(`${server.url}/api/v1/billing/webhook`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'stripe-signature': stripeSignature(body, WEBHOOK_SECRET),
        },
        body,
      });
      const answer = (await res.json()) as { outcome?: string };
      if (!res.ok) throw new Error(`webhook: ${res.status} ${JSON.stringify(answer)}`);
      return { body, outcome: answer.outcome };
    };
    const timed = async (work: () => Promise<unknown>) => {
      const t = performance.now();
      await work();
      return performance.now() - t;
    };

    const replayed = await deliver();
    const samples = {
      me: [] as number[],
      summary: [] as number[],
      roster: [] as number[],
      applied: [] as number[],
      replay: [] as number[],
    };
    for (let i = 0; i < 20; i++)
      await Promise.all([call('GET', '/auth/me'), call('GET', '/api/v1/billing/summary')]);
    for (let i = 0; i < ROUNDS; i++) {
      samples.me.push(await timed(() => call('GET', '/auth/me')));
      samples.summary.push(await timed(() => call('GET', '/api/v1/billing/summary')));
      samples.roster.push(
        await timed(async () => {
          const roster = await call<{ members: unknown[] }>('GET', '/api/v1/workspace');
          if (roster.members.length !== MEMBERS + 1) throw new Error('the roster is incomplete');
        }),
      );
      samples.applied.push(
        await timed(async () => {
          if ((await deliver()).outcome !== 'applied') throw new Error('the event was not applied');
        }),
      );
      samples.replay.push(
        await timed(async () => {
          if ((await deliver(replayed.body)).outcome !== 'duplicate')
            throw new Error('the replay was applied');
        }),
      );
    }
    const base = median(samples.me);
    const line = (label: string, values: number[]) =>
      `  ${label.padEnd(46)}: ${median(values).toFixed(2)} ms (${ratio(median(values), base)})`;
    console.log(
      `billing and workspaces: medians of ${ROUNDS} sequential requests, a ${MEMBERS + 1}-member Team workspace\n` +
        `  GET /auth/me (baseline)                       : ${base.toFixed(2)} ms\n` +
        `${line('GET /api/v1/billing/summary', samples.summary)}\n` +
        `${line('GET /api/v1/workspace (owner roster)', samples.roster)}\n` +
        `${line('POST /billing/webhook, applied (asks Stripe)', samples.applied)}\n` +
        `${line('POST /billing/webhook, replayed (no-op)', samples.replay)}`,
    );
  } finally {
    await close();
    await stripe.close();
  }
}
