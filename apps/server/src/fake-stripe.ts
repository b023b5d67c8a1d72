import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSubscription {
  id: string;
  customer: string;
  status: string;
  price: string;
  workspaceId: string;
  periodStart: number;
  periodEnd: number;
}

export interface SeenRequest {
  method: string;
  path: string;
  form: URLSearchParams;
  idempotencyKey: string | undefined;
}

/** The secret key the stand-in accepts (STRIPE_SECRET_KEY of a server pointed at it). */
export const FAKE_STRIPE_KEY = 'sk_test_fake';

/**
 * Signs a webhook payload as Stripe does (`t=<unix time>,v1=<HMAC-SHA256 of "t.payload">`), for tests
 * and benchmarks that deliver events.
 */
export function stripeSignature(
  payload: string,
  secret: string,
  timestamp = Math.floor(Date.now() / 1000),
): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex')}`;
}

/**
 * A local stand-in for the parts of Stripe's API the service calls (customers, Checkout Sessions,
 * Customer Portal sessions, subscriptions): the stripe library reaches it through STRIPE_API_BASE.
 * What a test sets in `subscriptions` is Stripe's current state.
 */
export async function startFakeStripe() {
  const seen: SeenRequest[] = [];
  const subscriptions = new Map<string, FakeSubscription>();
  const customersByKey = new Map<string, string>();
  const checkoutSessions = new Map<
    string,
    { id: string; object: string; customer: string | null; status: string; url: string }
  >();
  let counter = 0;
  const next = (prefix: string) => `${prefix}_fake${String(++counter).padStart(6, '0')}`;

  const read = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://stripe');
      const form = req.method === 'POST' ? await read(req) : url.searchParams;
      const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
      seen.push({ method: req.method ?? '', path: url.pathname, form, idempotencyKey });
      const json = (status: number, body: unknown) =>
        res
          .writeHead(status, { 'content-type': 'application/json', 'request-id': next('req') })
          .end(JSON.stringify(body));
      if (req.headers.authorization !== `Bearer ${FAKE_STRIPE_KEY}`)
        return json(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });

      if (req.method === 'POST' && url.pathname === '/v1/customers') {
        const existing = idempotencyKey ? customersByKey.get(idempotencyKey) : undefined;
        const id = existing ?? next('cus');
        if (idempotencyKey) customersByKey.set(idempotencyKey, id);
        return json(200, { id, object: 'customer', email: form.get('email'), metadata: {} });
      }
      if (req.method === 'POST' && url.pathname === '/v1/checkout/sessions') {
        const id = next('cs');
        const session = {
          id,
          object: 'checkout.session',
          customer: form.get('customer'),
          status: 'open',
          url: `https://checkout.stripe.test/pay/${id}`,
        };
        checkoutSessions.set(id, session);
        return json(200, session);
      }
      if (req.method === 'GET' && url.pathname === '/v1/checkout/sessions') {
        const data = [...checkoutSessions.values()].filter(
          (session) =>
            session.customer === form.get('customer') &&
            (!form.get('status') || session.status === form.get('status')),
        );
        return json(200, { object: 'list', data, has_more: false, url: '/v1/checkout/sessions' });
      }
      const expire = /^\/v1\/checkout\/sessions\/([\w-]+)\/expire$/.exec(url.pathname);
      if (req.method === 'POST' && expire) {
        const session = checkoutSessions.get(expire[1]!);
        if (!session || session.status !== 'open')
          return json(400, {
            error: { type: 'invalid_request_error', message: 'Only open sessions can be expired' },
          });
        session.status = 'expired';
        return json(200, session);
      }
      if (req.method === 'POST' && url.pathname === '/v1/billing_portal/sessions') {
        const id = next('bps');
        return json(200, {
          id,
          object: 'billing_portal.session',
          url: `https://billing.stripe.test/session/${id}`,
        });
      }
      const subscription = /^\/v1\/subscriptions\/([\w-]+)$/.exec(url.pathname);
      if (req.method === 'GET' && subscription) {
        const sub = subscriptions.get(subscription[1]!);
        if (!sub)
          return json(404, {
            error: {
              type: 'invalid_request_error',
              code: 'resource_missing',
              message: 'No such subscription',
            },
          });
        return json(200, {
          id: sub.id,
          object: 'subscription',
          customer: sub.customer,
          status: sub.status,
          metadata: { workspace_id: sub.workspaceId },
          items: {
            object: 'list',
            data: [
              {
                id: `si_${sub.id}`,
                object: 'subscription_item',
                price: { id: sub.price, object: 'price' },
                current_period_start: sub.periodStart,
                current_period_end: sub.periodEnd,
              },
            ],
          },
        });
      }
      return json(404, {
        error: {
          type: 'invalid_request_error',
          message: `Unrecognized request URL (${req.method} ${url.pathname})`,
        },
      });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    subscriptions,
    checkoutSessions,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
