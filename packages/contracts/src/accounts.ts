import { z } from 'zod';
import { isoDateTime } from './common.ts';

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;

export const emailSchema = z
  .string()
  .trim()
  .max(254, 'must be at most 254 characters')
  .pipe(z.email('must be an email address such as ada@example.com'))
  .transform((email) => email.toLowerCase());

export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`);

export const tokenSchema = z.string().min(16, 'is not a valid token').max(256, 'is not a valid token');

export const registerInputSchema = z.strictObject({
  email: emailSchema,
  password: passwordSchema,
  name: z.string().trim().min(1).max(120).optional(),
});
export type RegisterInput = z.infer<typeof registerInputSchema>;

export const loginInputSchema = z.strictObject({
  email: emailSchema,
  password: z.string().min(1, 'is required').max(PASSWORD_MAX_LENGTH),
});
export type LoginInput = z.infer<typeof loginInputSchema>;

export const forgotPasswordInputSchema = z.strictObject({ email: emailSchema });
export const resetPasswordInputSchema = z.strictObject({ token: tokenSchema, password: passwordSchema });
export const verifyEmailInputSchema = z.strictObject({ token: tokenSchema });

export const planIds = ['free', 'pro', 'team'] as const;
export type PlanId = (typeof planIds)[number];
export const workspaceRoles = ['owner', 'member'] as const;
export type WorkspaceRole = (typeof workspaceRoles)[number];
export const authMethods = ['session', 'api_key'] as const;
export type AuthMethod = (typeof authMethods)[number];

export const userSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    email_verified: z.boolean(),
    created_at: isoDateTime,
  })
  .meta({ id: 'User' });

export const workspaceRefSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    plan: z.enum(planIds),
    role: z.enum(workspaceRoles),
    personal: z.boolean(),
  })
  .meta({ id: 'WorkspaceRef' });

export const meSchema = z
  .object({
    user: userSchema,
    workspace: workspaceRefSchema,
    plan: z.enum(planIds),
    email_verified: z.boolean(),
    auth_method: z.enum(authMethods),
  })
  .meta({ id: 'Me' });
export type Me = z.infer<typeof meSchema>;

export const sessionInfoSchema = meSchema
  .extend({
    session_expires_at: isoDateTime.describe('When the session ends at the latest (absolute expiry).'),
  })
  .meta({ id: 'SessionInfo' });
export type SessionInfo = z.infer<typeof sessionInfoSchema>;

export const onboardingStatusSchema = z
  .object({
    steps: z.object({
      verify_email: z.boolean(),
      first_connection: z.boolean(),
      first_question: z.boolean(),
    }),
    completed: z.boolean(),
    next_step: z.enum(['verify_email', 'first_connection', 'first_question']).nullable(),
  })
  .meta({ id: 'OnboardingStatus' });
export type OnboardingStatus = z.infer<typeof onboardingStatusSchema>;

export const authProvidersSchema = z
  .object({
    providers: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        enabled: z.boolean(),
        routes: z.array(z.string()),
      }),
    ),
  })
  .meta({ id: 'AuthProviders' });
export type AuthProviders = z.infer<typeof authProvidersSchema>;

export const apiKeySummarySchema = z.object({
  id: z.string(),
  prefix: z.string(),
  name: z.string().nullable(),
  user_email: z.string(),
  workspace_id: z.string(),
  created_at: isoDateTime,
  last_used_at: isoDateTime.nullable(),
  revoked_at: isoDateTime.nullable(),
});
export type ApiKeySummary = z.infer<typeof apiKeySummarySchema>;
