import { z } from 'zod';
import {
  authProvidersSchema,
  detailSchema,
  forgotPasswordInputSchema,
  loginInputSchema,
  meSchema,
  myWorkspacesSchema,
  onboardingStatusSchema,
  registerInputSchema,
  resetPasswordInputSchema,
  selectWorkspaceSchema,
  sessionInfoSchema,
  verifyEmailInputSchema,
} from '@aqs/contracts';
import { accounts, workspaces } from '@aqs/core';
import { authedProcedure, publicProcedure, router } from '../../trpc.ts';
import type { Context } from '../../context.ts';

const noInput = z.strictObject({});
const tags = ['Account'];

/** Every sign-in route also counts against the per-client brute-force limit. */
const authLimitedProcedure = publicProcedure.use(async ({ ctx, next }) => {
  await accounts.enforceAuthLimit(ctx.deps, 'client', ctx.clientAddress);
  return next();
});

function startSession(ctx: Context, issued: { token: string; absoluteExpiresAt: Date }) {
  ctx.session.set(issued.token, issued.absoluteExpiresAt);
}

export const authRouter = router({
  providers: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/auth/providers',
        tags,
        protect: false,
        summary: 'Enabled sign-in methods',
      },
    })
    .input(z.void())
    .output(authProvidersSchema)
    .query(() => ({
      providers: [
        {
          id: 'email',
          name: 'Email and password',
          enabled: true,
          routes: [
            '/auth/email/register',
            '/auth/email/login',
            '/auth/email/forgot-password',
            '/auth/email/reset-password',
            '/auth/email/verify',
          ],
        },
      ],
    })),

  register: authLimitedProcedure
    .meta({
      successStatus: 202,
      openapi: {
        method: 'POST',
        path: '/auth/email/register',
        tags,
        protect: false,
        summary: 'Register with email and password',
        description:
          'Always answers 202 with the same sentence, whether or not the address is already registered (no account enumeration). A new address receives a confirmation link; a registered one a note that the account exists. Sign in with `/auth/email/login` afterwards: sign-in works before the address is confirmed.',
      },
    })
    .input(registerInputSchema)
    .output(detailSchema)
    .mutation(async ({ ctx, input }) => {
      await accounts.register(ctx.deps, input);
      return { detail: accounts.REGISTER_ACCEPTED };
    }),

  login: authLimitedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/email/login',
        tags,
        protect: false,
        summary: 'Sign in; sets the session cookie',
        description:
          'On success sets the session cookie (`aqs_session`, or `__Host-aqs_session` when the app is served over HTTPS; HttpOnly, SameSite=Lax) with a new token. A wrong email and a wrong password get the same 401.',
      },
    })
    .input(loginInputSchema)
    .output(sessionInfoSchema)
    .mutation(async ({ ctx, input }) => {
      const { session, info } = await accounts.login(ctx.deps, input, ctx.userAgent);
      startSession(ctx, session);
      return info;
    }),

  forgotPassword: authLimitedProcedure
    .meta({
      successStatus: 202,
      openapi: {
        method: 'POST',
        path: '/auth/email/forgot-password',
        tags,
        protect: false,
        summary: 'Email a password-reset link',
        description: 'Always answers 202 with the same sentence, whether or not an account exists.',
      },
    })
    .input(forgotPasswordInputSchema)
    .output(detailSchema)
    .mutation(async ({ ctx, input }) => {
      await accounts.forgotPassword(ctx.deps, input.email);
      return { detail: accounts.FORGOT_ACCEPTED };
    }),

  resetPassword: authLimitedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/email/reset-password',
        tags,
        protect: false,
        summary: 'Set a new password with the emailed token',
        description:
          'The token works once and expires after an hour. Every session of the account ends; sign in again.',
      },
    })
    .input(resetPasswordInputSchema)
    .output(detailSchema)
    .mutation(async ({ ctx, input }) => {
      await accounts.resetPassword(ctx.deps, input.token, input.password);
      ctx.session.clear();
      return {
        detail: 'Your password was changed and every session was signed out. Sign in with the new password.',
      };
    }),

  verifyEmail: authLimitedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/email/verify',
        tags,
        protect: false,
        summary: 'Confirm the email address with the emailed token',
        description: 'The token works once and expires after 48 hours.',
      },
    })
    .input(verifyEmailInputSchema)
    .output(detailSchema)
    .mutation(async ({ ctx, input }) => {
      await accounts.verifyEmail(ctx.deps, input.token);
      return { detail: 'Your email address is confirmed.' };
    }),

  resendVerification: authedProcedure
    .meta({
      successStatus: 202,
      openapi: {
        method: 'POST',
        path: '/auth/email/resend-verification',
        tags,
        summary: 'Send a new confirmation link to the signed-in user',
      },
    })
    .input(noInput)
    .output(detailSchema)
    .mutation(async ({ ctx }) => ({ detail: await accounts.resendVerification(ctx.deps, ctx.principal) })),

  refresh: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/refresh',
        tags,
        summary: 'Rotate the session token',
        description:
          'Replaces the session with a new one (new cookie token, fresh idle window) and ends the old one. Only for cookie sessions: an API key answers 400.',
      },
    })
    .input(noInput)
    .output(sessionInfoSchema)
    .mutation(async ({ ctx }) => {
      const { session, info } = await accounts.refreshSession(ctx.deps, ctx.principal, ctx.userAgent);
      startSession(ctx, session);
      return info;
    }),

  logout: publicProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/logout',
        tags,
        protect: false,
        summary: 'Sign out',
        description:
          'Ends the session on the server and clears the cookie. Answers 200 even without a session.',
      },
    })
    .input(noInput)
    .output(detailSchema)
    .mutation(async ({ ctx }) => {
      await accounts.logout(ctx.deps, ctx.principal);
      ctx.session.clear();
      return { detail: 'Signed out.' };
    }),

  me: authedProcedure
    .meta({
      openapi: { method: 'GET', path: '/auth/me', tags, summary: 'The signed-in user, workspace and plan' },
    })
    .input(z.void())
    .output(meSchema)
    .query(({ ctx }) => accounts.getMe(ctx.deps, ctx.principal)),

  onboardingStatus: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/auth/me/onboarding-status',
        tags,
        summary: 'Which first steps are done',
      },
    })
    .input(z.void())
    .output(onboardingStatusSchema)
    .query(({ ctx }) => accounts.onboardingStatus(ctx.deps, ctx.principal)),

  workspaces: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/auth/me/workspaces',
        tags,
        summary: 'The workspaces you belong to',
        description:
          'Your personal workspace and every workspace you joined, with your role and plan; `current` marks the one this request works in (a session: the selected one; an API key: the one it was created for).',
      },
    })
    .input(z.void())
    .output(myWorkspacesSchema)
    .query(({ ctx }) => workspaces.listMyWorkspaces(ctx.deps, ctx.principal)),

  selectWorkspace: authedProcedure
    .meta({
      openapi: {
        method: 'PUT',
        path: '/auth/me/workspace',
        tags,
        summary: 'Choose the workspace your sessions work in',
        description:
          'Every later request made with a browser session of yours works in this workspace (connections, runs, conversations, dashboards, templates, billing). A workspace you do not belong to: 404. An API key is bound to the workspace it was created for: 400.',
      },
    })
    .input(selectWorkspaceSchema)
    .output(myWorkspacesSchema)
    .mutation(({ ctx, input }) => workspaces.selectWorkspace(ctx.deps, ctx.principal, input.workspace_id)),
});
