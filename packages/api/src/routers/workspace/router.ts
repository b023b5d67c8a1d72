import { z } from 'zod';
import {
  detailSchema,
  inviteAcceptSchema,
  inviteAcceptedSchema,
  inviteCreateSchema,
  inviteIdParamSchema,
  memberIdParamSchema,
  workspaceInviteSchema,
  workspaceViewSchema,
} from '@aqs/contracts';
import { workspaces } from '@aqs/core';
import { authedProcedure, router } from '../../trpc.ts';

const tags = ['Workspace'];

export const workspaceRouter = router({
  get: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/workspace',
        tags,
        summary: 'Roster for owners, summary for members',
        description:
          'For the owner (`role: "owner"`): members with role and join date, pending invites, seats (members and pending invites hold one each) and `can_invite`. For a member (`role: "member"`): the workspace, its owner and plan, and when they joined.',
      },
    })
    .input(z.strictObject({}))
    .output(workspaceViewSchema)
    .query(({ ctx }) => workspaces.getWorkspace(ctx.deps, ctx.principal)),

  invite: authedProcedure
    .meta({
      successStatus: 201,
      extraErrors: ['409'],
      openapi: {
        method: 'POST',
        path: '/api/v1/workspace/invites',
        tags,
        summary: 'Invite someone by email',
        description:
          'Emails a single-use link (valid 7 days; the token is stored only hashed). Owner only (403 `owner_required`). Team plan only (403 `team_plan_required`). Every seat taken by members and pending invites: 429 `quota_seats_exceeded`. Already a member: 409 `already_member`. A pending invite to the same address is replaced (its old link stops working).',
      },
    })
    .input(inviteCreateSchema)
    .output(workspaceInviteSchema)
    .mutation(({ ctx, input }) => workspaces.createInvite(ctx.deps, ctx.principal, input)),

  revokeInvite: authedProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/api/v1/workspace/invites/{invite_id}',
        tags,
        summary: 'Revoke a pending invite',
        description: 'Its link stops working at once. Owner only. An unknown, used or expired invite: 404.',
      },
    })
    .input(inviteIdParamSchema)
    .output(detailSchema)
    .mutation(async ({ ctx, input }) => {
      await workspaces.revokeInvite(ctx.deps, ctx.principal, input.invite_id);
      return { detail: 'Invite revoked.' };
    }),

  acceptInvite: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/workspace/invites/accept',
        tags,
        summary: 'Join a workspace with an emailed invite',
        description:
          "For a signed-in user whose verified email is the invited one. Joins the workspace and makes it the one the user's browser sessions work in. An unknown, expired, revoked or used token, another email, or an unverified email: 400 with a sentence saying what to do. The workspace left the Team plan: 403 `team_plan_required`; no seat left: 429 `quota_seats_exceeded`.",
      },
    })
    .input(inviteAcceptSchema)
    .output(inviteAcceptedSchema)
    .mutation(({ ctx, input }) => workspaces.acceptInvite(ctx.deps, ctx.principal, input.token)),

  removeMember: authedProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/api/v1/workspace/members/{member_user_id}',
        tags,
        summary: 'Remove a member (or leave)',
        description:
          "The owner removes a member; a member may remove only themself (leave). Access ends at once: the member's API keys for the workspace are revoked and their sessions fall back to their own workspace at the next request. What they made (runs, conversations, dashboards) stays. A member naming anyone else: 403 `owner_required`; the owner naming themself: 400 (the owner cannot leave).",
      },
    })
    .input(memberIdParamSchema)
    .output(detailSchema)
    .mutation(async ({ ctx, input }) => {
      await workspaces.removeMember(ctx.deps, ctx.principal, input.member_user_id);
      return {
        detail: input.member_user_id === ctx.principal.userId ? 'You left the workspace.' : 'Member removed.',
      };
    }),
});
