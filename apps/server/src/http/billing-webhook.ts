import type { Hono } from 'hono';
import { billing, DomainError, type RunDeps } from '@aqs/core';
import { WebhookSignatureError, type StripeBilling } from '../billing.ts';
import { readBodyBytes } from './body.ts';
import type { AppEnv } from './env.ts';

export const WEBHOOK_PATH = '/api/v1/billing/webhook';

/**
 * Stripe's callback. Mounted before the guard: it carries no API key or cookie, so neither the rate
 * limiter nor the CSRF check applies; the signature over the raw body is its only credential, and a
 * missing or bad one is a 400 that changes nothing.
 */
export function mountBillingWebhook(
  app: Hono<AppEnv>,
  core: RunDeps,
  stripe: StripeBilling | undefined,
): void {
  app.post(WEBHOOK_PATH, async (c) => {
    if (!stripe)
      throw new DomainError(
        'unavailable',
        'Billing is not set up on this server (no STRIPE_SECRET_KEY), so it takes no Stripe events.',
        { code: 'billing_not_configured' },
      );
    // The signature covers the bytes as sent: they are verified before any decoding.
    const raw = await readBodyBytes(c.req.raw);
    let event;
    try {
      event = stripe.verify(raw, c.req.header('stripe-signature'));
    } catch (error) {
      if (error instanceof WebhookSignatureError) {
        c.get('log')?.warn({ reason: error.message }, 'billing webhook refused: bad signature');
        return c.json(
          { detail: `The Stripe-Signature header does not verify for this body: ${error.message}` },
          400,
        );
      }
      throw error;
    }
    const outcome = await billing.handleBillingEvent(core, event);
    c.get('log')?.info({ eventId: event.id, type: event.type, outcome }, 'billing webhook');
    return c.json({ received: true, outcome });
  });
}
