import { z } from 'zod';
import { emailSchema, planIds, tokenSchema, workspaceRoles } from './accounts.ts';
import { idSchema, isoDateTime } from './common.ts';

export const subscriptionStatuses = ['active', 'trialing', 'past_due', 'canceled', 'none'] as const;
export type SubscriptionStatus = (typeof subscriptionStatuses)[number];

/** Plans a workspace can buy through checkout (free is what a workspace has without a subscription). */
export const paidPlanIds = ['pro', 'team'] as const;
export type PaidPlanId = (typeof paidPlanIds)[number];

const allowanceSchema = z.object({
  used: z.number().int(),
  limit: z.number().int(),
});

export const planLimitsSchema = z
  .object({
    questions_per_month: z.number().int(),
    schema_analyses_per_month: z.number().int(),
    connections: z
      .number()
      .int()
      .describe('Active (not paused) connections; the demo connection does not count.'),
    seats: z.number().int().describe('People in the workspace, the owner included.'),
  })
  .meta({ id: 'PlanLimits' });
export type PlanLimitsRecord = z.infer<typeof planLimitsSchema>;

export const billingSummarySchema = z
  .object({
    workspace_id: z.string(),
    plan: z.enum(planIds),
    status: z
      .enum(subscriptionStatuses)
      .describe(
        "The subscription's state; `none` when the workspace never subscribed (or its plan was set by the operator).",
      ),
    period_start: isoDateTime.describe(
      'Start of the usage month (UTC): allowances are counted per calendar month.',
    ),
    period_end: isoDateTime.describe('End of the usage month (UTC, exclusive): the allowances renew then.'),
    renews_at: isoDateTime
      .nullable()
      .describe("End of the subscription's current billing period, when there is a subscription."),
    usage: z.object({
      questions: allowanceSchema,
      schema_analyses: allowanceSchema,
      connections: allowanceSchema.describe('Active connections now (not a monthly count).'),
    }),
    seats: z.object({
      used: z.number().int().describe('Members, the owner included.'),
      pending: z.number().int().describe('Invites not yet accepted (they hold a seat).'),
      allowed: z.number().int(),
    }),
    limits: z
      .record(z.enum(planIds), planLimitsSchema)
      .describe("Every plan's limits, to compare before upgrading."),
    billing_configured: z
      .boolean()
      .describe('Whether checkout and the customer portal are available (the operator set up Stripe).'),
    can_manage: z.boolean().describe('Whether the caller may upgrade or manage billing (the owner).'),
  })
  .meta({ id: 'BillingSummary' });
export type BillingSummary = z.infer<typeof billingSummarySchema>;

export const checkoutInputSchema = z.strictObject({
  plan: z.enum(paidPlanIds, { message: 'must be pro or team' }),
});
export const billingUrlSchema = z
  .object({ url: z.url().describe("Send the browser there (Stripe's hosted page).") })
  .meta({ id: 'BillingUrl' });

// ---------- workspaces ----------
const personSchema = z.object({
  user_id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
});

export const workspaceMemberSchema = personSchema
  .extend({
    role: z.enum(workspaceRoles),
    joined_at: isoDateTime,
  })
  .meta({ id: 'WorkspaceMember' });
export type WorkspaceMember = z.infer<typeof workspaceMemberSchema>;

export const inviteRoles = ['member'] as const;

export const workspaceInviteSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    role: z.enum(inviteRoles),
    invited_by: z.string().nullable().describe('Email of who sent it.'),
    created_at: isoDateTime,
    expires_at: isoDateTime,
  })
  .meta({ id: 'WorkspaceInvite' });
export type WorkspaceInvite = z.infer<typeof workspaceInviteSchema>;

const workspaceInfoSchema = z.object({
  id: z.string(),
  name: z.string(),
  personal: z.boolean(),
  plan: z.enum(planIds),
  owner: personSchema,
});

export const workspaceViewSchema = z
  .discriminatedUnion('role', [
    z.object({
      role: z.literal('owner'),
      workspace: workspaceInfoSchema,
      members: z.array(workspaceMemberSchema),
      invites: z.array(workspaceInviteSchema).describe('Pending invites (not accepted, revoked or expired).'),
      seats: z.object({ used: z.number().int(), pending: z.number().int(), allowed: z.number().int() }),
      can_invite: z.boolean().describe('Team plan and a free seat.'),
    }),
    z.object({
      role: z.literal('member'),
      workspace: workspaceInfoSchema,
      joined_at: isoDateTime,
    }),
  ])
  .meta({ id: 'Workspace' });
export type WorkspaceView = z.infer<typeof workspaceViewSchema>;

export const inviteCreateSchema = z.strictObject({
  email: emailSchema,
  role: z.enum(inviteRoles, { message: 'must be member (a workspace has one owner)' }).default('member'),
});
export const inviteIdParamSchema = z.strictObject({ invite_id: idSchema });
export const inviteAcceptSchema = z.strictObject({ token: tokenSchema });
export const memberIdParamSchema = z.strictObject({ member_user_id: idSchema });

export const inviteAcceptedSchema = z
  .object({
    workspace: z.object({ id: z.string(), name: z.string(), plan: z.enum(planIds) }),
    role: z.enum(workspaceRoles),
    detail: z.string(),
  })
  .meta({ id: 'InviteAccepted' });

export const myWorkspaceSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    personal: z.boolean(),
    plan: z.enum(planIds),
    role: z.enum(workspaceRoles),
    current: z.boolean().describe('The workspace this session acts in.'),
  })
  .meta({ id: 'MyWorkspace' });
export const myWorkspacesSchema = z
  .object({ workspaces: z.array(myWorkspaceSchema) })
  .meta({ id: 'MyWorkspaces' });
export const selectWorkspaceSchema = z.strictObject({ workspace_id: idSchema });

const limitCount = z.number().int('must be a whole number').min(0, 'must be 0 or more').max(100_000_000);
const planOverrideSchema = z.strictObject({
  questions_per_month: limitCount.optional(),
  schema_analyses_per_month: limitCount.optional(),
  connections: limitCount.optional(),
  seats: limitCount.min(1, 'must be at least 1 (the owner)').optional(),
});

/** The operator's plan limits file (PLAN_LIMITS_FILE): any plan, any limit; what is not named keeps its default. */
export const planOverridesSchema = z.strictObject({
  free: planOverrideSchema.optional(),
  pro: planOverrideSchema.optional(),
  team: planOverrideSchema.optional(),
});
