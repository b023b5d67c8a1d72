import type { PaidPlanId, PlanId } from '@aqs/contracts';

/** A subscription as the payment provider holds it now (the webhook applies this, never an event's copy). */
export interface SubscriptionState {
  id: string;
  customerId: string;
  /** The provider's status (`active`, `trialing`, `past_due`, `unpaid`, `canceled`, `incomplete`, ...). */
  status: string;
  /** The plan its price is for; undefined for a price the service does not sell. */
  plan: PaidPlanId | undefined;
  /** From the subscription's metadata, set at checkout. */
  workspaceId: string | undefined;
  currentPeriodStart: Date | undefined;
  currentPeriodEnd: Date | undefined;
}

/** A verified webhook event, reduced to what the service acts on. */
export interface BillingEvent {
  id: string;
  type: string;
  created: Date;
  /** The workspace named by the event (checkout's client reference, or the subscription's metadata). */
  workspaceId: string | undefined;
  customerId: string | undefined;
  subscriptionId: string | undefined;
  /** The event's own object, stored for the record. */
  payload: Record<string, unknown>;
}

/**
 * The payment provider (Stripe in production, a local stand-in in tests), wired by the server. The
 * service never trusts an event's copy of a subscription: it asks for the current one, so events
 * delivered out of order or twice always converge on the provider's latest state.
 */
export interface BillingProvider {
  createCustomer(input: { workspaceId: string; email: string; name: string }): Promise<string>;
  checkoutUrl(input: {
    customerId: string;
    workspaceId: string;
    plan: PaidPlanId;
    successUrl: string;
    cancelUrl: string;
  }): Promise<string>;
  portalUrl(input: { customerId: string; returnUrl: string }): Promise<string>;
  subscription(id: string): Promise<SubscriptionState | undefined>;
}

/** Plans by how much they include, to tell an upgrade from a downgrade. */
export const PLAN_RANK: Record<PlanId, number> = { free: 0, pro: 1, team: 2 };
