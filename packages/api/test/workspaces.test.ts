import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { apiKeys, billing, planLimitsOf, sha256Hex, type RunDeps } from '@aqs/core';
import { runs, workspaceInvites } from '@aqs/db';
import {
  again,
  callerOf,
  closePools,
  codeOf,
  demoConnectionId,
  errorOf,
  harness,
  lastEmail,
  principalOfApiKey,
  principalOfSession,
  problemOf,
  signedIn,
  tokenFromEmail,
  uniqueEmail,
  verifiedSignedIn,
  withStatus,
  type SignedIn,
} from './harness.ts';

let deps: RunDeps;

beforeAll(async () => {
  deps = (await harness()).deps;
});
afterAll(closePools);

async function teamOwner(): Promise<SignedIn> {
  const owner = await verifiedSignedIn(uniqueEmail('owner'));
  await billing.setPlanByEmail(deps, owner.email, 'team');
  return again(owner);
}

/** Invites an address and answers the token from the emailed link. */
async function invite(owner: SignedIn, email: string): Promise<{ id: string; token: string }> {
  const created = await owner.caller.workspace.invite({ email, role: 'member' });
  const mail = await lastEmail(email, /invited/);
  return { id: created.id, token: tokenFromEmail(mail!.text) };
}

/** A new member of the owner's workspace, working in it; `personalWorkspaceId` is their own. */
async function joined(owner: SignedIn): Promise<SignedIn & { personalWorkspaceId: string }> {
  const member = await verifiedSignedIn(uniqueEmail('member'));
  const { token } = await invite(owner, member.email);
  await member.caller.workspace.acceptInvite({ token });
  return { ...(await again(member)), personalWorkspaceId: member.principal.workspaceId };
}

describe('workspace roster and summary', () => {
  it('shows the owner their roster, invites and seats, and a member a summary', async () => {
    const owner = await teamOwner();
    const member = await joined(owner);
    const pending = uniqueEmail('pending');
    await owner.caller.workspace.invite({ email: pending, role: 'member' });

    const roster = await owner.caller.workspace.get({});
    if (roster.role !== 'owner') throw new Error('the owner should see the roster');
    expect(roster.members.map((m) => [m.email, m.role])).toEqual([
      [owner.email, 'owner'],
      [member.email, 'member'],
    ]);
    expect(roster.invites.map((i) => i.email)).toEqual([pending]);
    expect(roster.invites[0]!.invited_by).toBe(owner.email);
    expect(roster.seats).toEqual({ used: 2, pending: 1, allowed: 25 });
    expect(roster.can_invite).toBe(true);

    const summary = await member.caller.workspace.get({});
    expect(summary.role).toBe('member');
    expect(summary.workspace.owner.email).toBe(owner.email);
    expect(summary.workspace.plan).toBe('team');
    expect(summary).not.toHaveProperty('members');
    expect(summary).not.toHaveProperty('invites');
  });
});

describe('invites', () => {
  it('need the Team plan', async () => {
    const owner = await verifiedSignedIn(uniqueEmail('free'));
    const problem = await problemOf(owner.caller.workspace.invite({ email: uniqueEmail(), role: 'member' }));
    expect(problem.status).toBe(403);
    expect(problem.body.code).toBe('team_plan_required');
    expect(problem.body.detail).toMatch(/Team plan/);
  });

  it('are emailed as a single-use link whose token is stored only hashed, and answer 201', async () => {
    const owner = await teamOwner();
    const email = uniqueEmail('invitee');
    const { result, status } = await withStatus(owner.principal, (c) =>
      c.workspace.invite({ email, role: 'member' }),
    );
    expect(status).toBe(201);
    expect(result.email).toBe(email);
    expect(Date.parse(result.expires_at) - Date.parse(result.created_at)).toBe(7 * 24 * 3600_000);
    const token = tokenFromEmail((await lastEmail(email, /invited/))!.text);
    const [row] = await deps.db.select().from(workspaceInvites).where(eq(workspaceInvites.id, result.id));
    expect(row!.tokenHash).toBe(sha256Hex(token));
    expect(JSON.stringify(row)).not.toContain(token);
  });

  it('hold a seat: a full workspace refuses more with quota_seats_exceeded until one is revoked', async () => {
    const seats2: RunDeps = {
      ...deps,
      planLimits: { ...planLimitsOf(deps), team: { ...planLimitsOf(deps).team, seats: 2 } },
    };
    const owner = await teamOwner();
    const caller = (await again(owner, { deps: seats2 })).caller;
    const first = await caller.workspace.invite({ email: uniqueEmail('a'), role: 'member' });
    const refused = await problemOf(caller.workspace.invite({ email: uniqueEmail('b'), role: 'member' }));
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('quota_seats_exceeded');
    expect(refused.body.detail).toMatch(/2 seats/);
    await caller.workspace.revokeInvite({ invite_id: first.id });
    await expect(caller.workspace.invite({ email: uniqueEmail('b'), role: 'member' })).resolves.toBeDefined();
  });

  it('take the last seat once when invites race for it', async () => {
    const seats2: RunDeps = {
      ...deps,
      planLimits: { ...planLimitsOf(deps), team: { ...planLimitsOf(deps).team, seats: 2 } },
    };
    const caller = (await again(await teamOwner(), { deps: seats2 })).caller;
    const outcomes = await Promise.allSettled(
      [1, 2, 3, 4].map((n) => caller.workspace.invite({ email: uniqueEmail(`race${n}`), role: 'member' })),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const roster = await caller.workspace.get({});
    if (roster.role !== 'owner') throw new Error('owner view expected');
    expect(roster.seats).toEqual({ used: 1, pending: 1, allowed: 2 });
  });

  it('replace a pending invite to the same address, whose old link stops working', async () => {
    const owner = await teamOwner();
    const member = await verifiedSignedIn(uniqueEmail('twice'));
    const first = await invite(owner, member.email);
    const second = await invite(owner, member.email);
    expect(second.id).not.toBe(first.id);
    const roster = await owner.caller.workspace.get({});
    if (roster.role !== 'owner') throw new Error('owner view expected');
    expect(roster.invites.filter((i) => i.email === member.email)).toHaveLength(1);
    expect((await errorOf(member.caller.workspace.acceptInvite({ token: first.token }))).message).toMatch(
      /revoked/,
    );
    await expect(member.caller.workspace.acceptInvite({ token: second.token })).resolves.toBeDefined();
  });

  it('refuse an address that is already a member', async () => {
    const owner = await teamOwner();
    const member = await joined(owner);
    const problem = await problemOf(owner.caller.workspace.invite({ email: member.email, role: 'member' }));
    expect(problem.status).toBe(409);
    expect(problem.body.code).toBe('already_member');
  });

  it('take no client-chosen workspace, owner or role beyond member (strict input)', async () => {
    const owner = await teamOwner();
    const input = { email: uniqueEmail(), role: 'member', workspace_id: 'wsp_other' } as never;
    expect((await problemOf(owner.caller.workspace.invite(input))).status).toBe(422);
    const asOwner = { email: uniqueEmail(), role: 'owner' } as never;
    const problem = await problemOf(owner.caller.workspace.invite(asOwner));
    expect(problem.body.errors?.[0]?.field).toBe('role');
  });
});

describe('accepting an invite', () => {
  it('joins the workspace and moves the session into it', async () => {
    const owner = await teamOwner();
    const member = await verifiedSignedIn(uniqueEmail('joiner'));
    const { token } = await invite(owner, member.email);
    const accepted = await member.caller.workspace.acceptInvite({ token });
    expect(accepted.workspace.id).toBe(owner.principal.workspaceId);
    expect(accepted.role).toBe('member');
    const next = await principalOfSession(member.token);
    expect(next?.workspaceId).toBe(owner.principal.workspaceId);
    expect(next?.role).toBe('member');
    const mine = await (await again(member)).caller.auth.workspaces();
    expect(mine.workspaces.map((w) => [w.id, w.current])).toEqual([
      [member.principal.workspaceId, false],
      [owner.principal.workspaceId, true],
    ]);
  });

  it('works once, even for two requests at the same moment', async () => {
    const owner = await teamOwner();
    const member = await verifiedSignedIn(uniqueEmail('racer'));
    const { token } = await invite(owner, member.email);
    const outcomes = await Promise.allSettled([
      member.caller.workspace.acceptInvite({ token }),
      member.caller.workspace.acceptInvite({ token }),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const failed = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect((failed.reason as Error).message).toMatch(/already used/);
    const later = await errorOf(member.caller.workspace.acceptInvite({ token }));
    expect(later.code).toBe('BAD_REQUEST');
  });

  it('is refused to another address, and the invite stays usable by the invited one', async () => {
    const owner = await teamOwner();
    const invited = await verifiedSignedIn(uniqueEmail('invited'));
    const other = await verifiedSignedIn(uniqueEmail('other'));
    const { token } = await invite(owner, invited.email);
    const refused = await errorOf(other.caller.workspace.acceptInvite({ token }));
    expect(refused.code).toBe('BAD_REQUEST');
    expect(refused.message).toMatch(/another email address/);
    expect(refused.message).not.toContain(invited.email);
    expect((await principalOfSession(other.token))?.workspaceId).toBe(other.principal.workspaceId);
    await expect(invited.caller.workspace.acceptInvite({ token })).resolves.toBeDefined();
  });

  it('needs a confirmed email address', async () => {
    const owner = await teamOwner();
    const unverified = await signedIn(uniqueEmail('unverified'));
    const { token } = await invite(owner, unverified.email);
    expect((await errorOf(unverified.caller.workspace.acceptInvite({ token }))).message).toMatch(
      /Confirm your email/,
    );
  });

  it('is refused once expired, revoked, or for an unknown token, each with its own sentence', async () => {
    const owner = await teamOwner();
    const member = await verifiedSignedIn(uniqueEmail('late'));
    const { token, id } = await invite(owner, member.email);
    const later = await again(member, {
      deps: { ...deps, now: () => new Date(Date.now() + 8 * 24 * 3600_000) },
    });
    const expired = await errorOf(later.caller.workspace.acceptInvite({ token }));
    expect(expired.code).toBe('BAD_REQUEST');
    expect(expired.message).toMatch(/expired on \d{4}-\d{2}-\d{2}/);

    await owner.caller.workspace.revokeInvite({ invite_id: id });
    expect((await errorOf(member.caller.workspace.acceptInvite({ token }))).message).toMatch(/revoked/);
    expect((await errorOf(member.caller.workspace.acceptInvite({ token: 'x'.repeat(43) }))).message).toMatch(
      /not valid/,
    );
    expect((await principalOfSession(member.token))?.workspaceId).toBe(member.principal.workspaceId);
  });

  it('is refused when the workspace left the Team plan since the invite', async () => {
    const owner = await teamOwner();
    const member = await verifiedSignedIn(uniqueEmail('downgraded'));
    const { token } = await invite(owner, member.email);
    await billing.setPlanByEmail(deps, owner.email, 'pro');
    const problem = await problemOf(member.caller.workspace.acceptInvite({ token }));
    expect(problem.status).toBe(403);
    expect(problem.body.code).toBe('team_plan_required');
  });
});

describe('roles', () => {
  it('a member uses the workspace but cannot manage billing, invites, members or connections', async () => {
    const owner = await teamOwner();
    const member = await joined(owner);
    const other = await joined(owner);
    const connectionId = await demoConnectionId(owner.caller);
    const m = member.caller;

    const run = await m.runs.run({ question: 'how many orders per status', connection_id: connectionId });
    expect(run.status).toBe('succeeded');
    expect((await m.conversations.list({})).conversations.map((c) => c.id)).toContain(run.conversation_id);
    await expect(m.dashboards.create({ name: 'Shared board' })).resolves.toBeDefined();
    const summary = await m.billing.summary({});
    expect(summary.can_manage).toBe(false);
    expect(summary.plan).toBe('team');

    const refused = [
      m.workspace.invite({ email: uniqueEmail(), role: 'member' }),
      m.workspace.removeMember({ member_user_id: other.principal.userId }),
      m.billing.checkout({ plan: 'pro' }),
      m.billing.portal({}),
      m.connections.delete({ id: connectionId }),
      m.connections.paused({ id: connectionId, paused: true }),
      m.connections.update({ id: connectionId, name: 'renamed' }),
      m.connections.duplicate({ id: connectionId }),
    ];
    for (const call of refused) {
      const problem = await problemOf(call);
      expect(problem.status).toBe(403);
      expect(problem.body.code).toBe('owner_required');
    }
    expect((await owner.caller.connections.get({ id: connectionId })).name).not.toBe('renamed');
  });
});

describe('removing a member', () => {
  it('ends their access at the next request, by session and by API key, and keeps their runs', async () => {
    const owner = await teamOwner();
    const member = await joined(owner);
    const { key } = await apiKeys.createApiKey(deps, { email: member.email });
    expect((await principalOfApiKey(key))?.workspaceId).toBe(owner.principal.workspaceId);
    const connectionId = await demoConnectionId(owner.caller);
    const run = await member.caller.runs.run({
      question: 'how many orders per status',
      connection_id: connectionId,
    });

    await owner.caller.workspace.removeMember({ member_user_id: member.principal.userId });

    const next = await principalOfSession(member.token);
    expect(next?.workspaceId).toBe(member.personalWorkspaceId);
    expect(next?.role).toBe('owner');
    expect(await principalOfApiKey(key)).toBeUndefined();
    expect(await codeOf((await again(member)).caller.runs.get({ run_id: run.id }))).toBe('NOT_FOUND');
    const [kept] = await deps.db
      .select({ id: runs.id })
      .from(runs)
      .where(and(eq(runs.id, run.id), eq(runs.workspaceId, owner.principal.workspaceId)));
    expect(kept?.id).toBe(run.id);
    await expect(owner.caller.runs.get({ run_id: run.id })).resolves.toBeDefined();
    const roster = await owner.caller.workspace.get({});
    if (roster.role !== 'owner') throw new Error('owner view expected');
    expect(roster.members.map((m) => m.email)).not.toContain(member.email);
  });

  it('lets a member leave, but not the owner; an unknown member is 404', async () => {
    const owner = await teamOwner();
    const member = await joined(owner);
    await member.caller.workspace.removeMember({ member_user_id: member.principal.userId });
    expect((await principalOfSession(member.token))?.workspaceId).toBe(member.personalWorkspaceId);
    expect(
      await codeOf(owner.caller.workspace.removeMember({ member_user_id: owner.principal.userId })),
    ).toBe('BAD_REQUEST');
    expect(await codeOf(owner.caller.workspace.removeMember({ member_user_id: 'usr_unknown' }))).toBe(
      'NOT_FOUND',
    );
  });
});

describe('choosing the workspace a session works in', () => {
  it('switches between the workspaces the user belongs to, and never into another', async () => {
    const owner = await teamOwner();
    const member = await joined(owner);
    await member.caller.auth.selectWorkspace({ workspace_id: member.personalWorkspaceId });
    expect((await principalOfSession(member.token))?.workspaceId).toBe(member.personalWorkspaceId);
    const stranger = await verifiedSignedIn(uniqueEmail('stranger'));
    expect(
      await codeOf(member.caller.auth.selectWorkspace({ workspace_id: stranger.principal.workspaceId })),
    ).toBe('NOT_FOUND');
  });

  it('binds an API key to the workspace the operator names, of which the user must be a member', async () => {
    const owner = await teamOwner();
    const member = await joined(owner);
    const { key } = await apiKeys.createApiKey(deps, {
      email: member.email,
      workspaceId: member.personalWorkspaceId,
    });
    expect((await principalOfApiKey(key))?.workspaceId).toBe(member.personalWorkspaceId);
    const { key: shared } = await apiKeys.createApiKey(deps, { email: member.email });
    expect((await principalOfApiKey(shared))?.workspaceId).toBe(owner.principal.workspaceId);
    const stranger = await verifiedSignedIn(uniqueEmail('stranger'));
    await expect(
      apiKeys.createApiKey(deps, { email: member.email, workspaceId: stranger.principal.workspaceId }),
    ).rejects.toThrow(/not a member/);
  });

  it('is for sessions: an API key stays in the workspace it was made for', async () => {
    const owner = await teamOwner();
    const { key } = await apiKeys.createApiKey(deps, { email: owner.email });
    const byKey = await principalOfApiKey(key);
    const caller = (await again(owner)).caller;
    const keyCaller = await callerOf(byKey);
    expect(await codeOf(keyCaller.auth.selectWorkspace({ workspace_id: owner.principal.workspaceId }))).toBe(
      'BAD_REQUEST',
    );
    await expect(caller.auth.workspaces()).resolves.toBeDefined();
  });
});
