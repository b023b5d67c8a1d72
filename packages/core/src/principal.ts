import type { AuthMethod, PlanId, WorkspaceRole } from '@aqs/contracts';
import { DomainError } from './errors.ts';

/** Who is calling: derived from the credential only, never from anything the client says. */
export interface Principal {
  userId: string;
  email: string;
  workspaceId: string;
  role: WorkspaceRole;
  plan: PlanId;
  authMethod: AuthMethod;
  sessionId?: string;
  apiKeyId?: string;
  /** The account as read with the credential (by `authenticate`), so `/auth/me` needs no query of its own. */
  account?: PrincipalAccount;
}

export interface PrincipalAccount {
  name: string | null;
  emailVerified: boolean;
  createdAt: Date;
  workspaceName: string;
  personal: boolean;
}

/**
 * Refuses a member what only the workspace's owner may do: billing, invites, removing others, and
 * adding, changing (name, address, credentials), pausing or deleting connections. Members use the
 * connections and may curate their schema (descriptions, keys, relationships, table selection, tags)
 * and run discovery. The check comes before any id is looked up, so a member learns nothing about
 * ids either way.
 */
export function requireOwner(principal: Principal, action: string): void {
  if (principal.role !== 'owner') {
    throw new DomainError(
      'forbidden',
      `Only the workspace's owner can ${action}. Ask them, or work in your own workspace.`,
      {
        code: 'owner_required',
      },
    );
  }
}
