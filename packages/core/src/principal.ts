import type { AuthMethod, PlanId, WorkspaceRole } from '@aqs/contracts';

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
}
