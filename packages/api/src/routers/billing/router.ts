import { z } from 'zod';
import { billingSummarySchema, billingUrlSchema, checkoutInputSchema } from '@aqs/contracts';
import { billing } from '@aqs/core';
import { authedProcedure, router } from '../../trpc.ts';

const tags = ['Billing'];
const ownerOnly = 'Owner only (403 `owner_required` for a member).';
const notConfigured =
  'Without Stripe configured on the server: 503 `billing_not_configured`, naming the CLI route to a plan.';

export const billingRouter = router({
  summary: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/billing/summary',
        tags,
        summary: 'Plan, status, usage this month, seats',
        description:
          "The workspace's plan and subscription status, this month's usage (UTC calendar month) against each limit, active connections against the slots, seats used (members and pending invites) against those allowed, and every plan's limits. Members may read it; `can_manage` says whether the caller may change it.",
      },
    })
    .input(z.strictObject({}))
    .output(billingSummarySchema)
    .query(({ ctx }) => billing.billingSummary(ctx.deps, ctx.principal)),

  checkout: authedProcedure
    .meta({
      extraErrors: ['409', '503'],
      openapi: {
        method: 'POST',
        path: '/api/v1/billing/checkout',
        tags,
        summary: 'A checkout URL to subscribe to a plan',
        description: `A Stripe Checkout Session in subscription mode for the workspace (its Stripe customer is created once and reused; \`client_reference_id\` is the workspace id); send the browser to \`url\`. The plan changes when Stripe confirms the payment (webhook), not here. A workspace whose subscription is live (active, trialing or past due): 409 \`subscription_exists\` (change plans in the portal). An earlier checkout of the workspace still open is expired first, so two checkouts can never both be paid. Stripe unreachable: 503 \`billing_provider_unavailable\`. ${ownerOnly} ${notConfigured}`,
      },
    })
    .input(checkoutInputSchema)
    .output(billingUrlSchema)
    .mutation(({ ctx, input }) => billing.startCheckout(ctx.deps, ctx.principal, input.plan)),

  portal: authedProcedure
    .meta({
      extraErrors: ['409', '503'],
      openapi: {
        method: 'POST',
        path: '/api/v1/billing/portal',
        tags,
        summary: 'A customer-portal URL to manage the subscription',
        description: `Stripe's Customer Portal for the workspace: change or cancel the plan, payment methods, invoices. A workspace that never checked out: 409 \`no_billing_account\`. Stripe unreachable: 503 \`billing_provider_unavailable\`. ${ownerOnly} ${notConfigured}`,
      },
    })
    .input(z.strictObject({}))
    .output(billingUrlSchema)
    .mutation(({ ctx }) => billing.openPortal(ctx.deps, ctx.principal)),
});
