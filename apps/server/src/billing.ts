import { createRequire } from 'node:module';
import type Stripe from 'stripe';
import type { PaidPlanId } from '@aqs/contracts';
import type { BillingEvent, BillingProvider, SubscriptionState } from '@aqs/core';
import type { StripeConfig } from './config.ts';

/** Stripe's default tolerance: a signature older than this is refused (replayed captures). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** A webhook whose signature does not verify (missing, wrong secret, altered body, too old). */
export class WebhookSignatureError extends Error {
  override name = 'WebhookSignatureError';
}

export interface StripeBilling {
  provider: BillingProvider;
  /** Verifies `Stripe-Signature` over the raw body and reduces the event; throws on a bad signature. */
  verify(rawBody: Buffer, signature: string | undefined): BillingEvent;
}

function idOf(value: string | { id: string } | null | undefined): string | undefined {
  if (!value) return undefined;
  return typeof value === 'string' ? value : value.id;
}

function dateOf(seconds: number | null | undefined): Date | undefined {
  return typeof seconds === 'number' ? new Date(seconds * 1000) : undefined;
}

/** The SDK, loaded when billing is configured: a service without Stripe never loads it. */
function stripeSdk(): typeof Stripe {
  return createRequire(import.meta.url)('stripe') as typeof Stripe;
}

/** The service's billing through Stripe (or a stand-in at STRIPE_API_BASE speaking its API). */
export function createStripeBilling(config: StripeConfig): StripeBilling {
  const Sdk = stripeSdk();
  const base = config.apiBase;
  const stripe = new Sdk(config.secretKey, {
    maxNetworkRetries: 1,
    timeout: 15_000,
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === 'https:' ? '443' : '80'),
          protocol: base.protocol === 'https:' ? 'https' : 'http',
        }
      : {}),
  });
  const planOfPrice = new Map<string, PaidPlanId>([
    [config.prices.pro, 'pro'],
    [config.prices.team, 'team'],
  ]);

  const provider: BillingProvider = {
    async createCustomer({ workspaceId, email, name }) {
      const customer = await stripe.customers.create(
        { email, name, metadata: { workspace_id: workspaceId } },
        // A retry after a lost answer finds the customer made the first time.
        { idempotencyKey: `aqs-customer-${workspaceId}` },
      );
      return customer.id;
    },
    async checkoutUrl({ customerId, workspaceId, plan, successUrl, cancelUrl }) {
      // One open checkout per customer: an earlier one left open (another tab, another plan) is
      // expired first, so two checkouts can never both be paid into two subscriptions.
      const open = await stripe.checkout.sessions.list({ customer: customerId, status: 'open', limit: 20 });
      for (const earlier of open.data) await stripe.checkout.sessions.expire(earlier.id);
      const session = await stripe.checkout.sessions.create({
        mode: 'subscription',
        customer: customerId,
        client_reference_id: workspaceId,
        line_items: [{ price: config.prices[plan], quantity: 1 }],
        success_url: successUrl,
        cancel_url: cancelUrl,
        metadata: { workspace_id: workspaceId },
        subscription_data: { metadata: { workspace_id: workspaceId } },
      });
      if (!session.url) throw new Error('Stripe answered a checkout session without a url');
      return session.url;
    },
    async portalUrl({ customerId, returnUrl }) {
      const session = await stripe.billingPortal.sessions.create({
        customer: customerId,
        return_url: returnUrl,
      });
      return session.url;
    },
    async subscription(id): Promise<SubscriptionState | undefined> {
      let subscription: Stripe.Subscription;
      try {
        subscription = await stripe.subscriptions.retrieve(id);
      } catch (error) {
        if (error instanceof Sdk.errors.StripeInvalidRequestError && error.statusCode === 404)
          return undefined;
        throw error;
      }
      const item = subscription.items.data[0];
      return {
        id: subscription.id,
        customerId: idOf(subscription.customer) ?? '',
        status: subscription.status,
        plan: item ? planOfPrice.get(item.price.id) : undefined,
        workspaceId: subscription.metadata.workspace_id,
        currentPeriodStart: dateOf(item?.current_period_start),
        currentPeriodEnd: dateOf(item?.current_period_end),
      };
    },
  };

  return {
    provider,
    verify(rawBody, signature) {
      if (!signature) throw new WebhookSignatureError('The request has no Stripe-Signature header.');
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(
          rawBody,
          signature,
          config.webhookSecret,
          WEBHOOK_TOLERANCE_SECONDS,
        );
      } catch (error) {
        throw new WebhookSignatureError(
          error instanceof Error ? error.message : 'The Stripe-Signature header does not match the body.',
        );
      }
      return reduceEvent(event);
    },
  };
}

function reduceEvent(event: Stripe.Event): BillingEvent {
  const object = event.data.object as unknown as Record<string, unknown>;
  const base = {
    id: event.id,
    type: event.type,
    created: new Date(event.created * 1000),
    payload: object,
  };
  switch (event.type) {
    case 'checkout.session.completed': {
      const session = event.data.object;
      return {
        ...base,
        workspaceId: session.client_reference_id ?? session.metadata?.workspace_id,
        customerId: idOf(session.customer),
        subscriptionId: idOf(session.subscription),
      };
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted': {
      const subscription = event.data.object;
      return {
        ...base,
        workspaceId: subscription.metadata.workspace_id,
        customerId: idOf(subscription.customer),
        subscriptionId: subscription.id,
      };
    }
    case 'invoice.payment_failed': {
      const invoice = event.data.object;
      return {
        ...base,
        workspaceId: invoice.parent?.subscription_details?.metadata?.workspace_id,
        customerId: idOf(invoice.customer),
        subscriptionId: idOf(invoice.parent?.subscription_details?.subscription),
      };
    }
    default:
      return { ...base, workspaceId: undefined, customerId: undefined, subscriptionId: undefined };
  }
}
