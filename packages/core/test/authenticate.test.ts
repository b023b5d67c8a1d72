import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import {
  apiKeys,
  newId,
  rateLimitCounters,
  sessions,
  users,
  workspaceMembers,
  workspaces,
  type Database,
} from '@aqs/db';
import { createTestStore, testStoreKinds, type TestStore } from '@aqs/db/testing';
import { defaultAuthSettings } from '../src/ports.ts';
import { authenticate, type RateLimitHit } from '../src/accounts/authenticate.ts';
import { issueSession } from '../src/accounts/sessions.ts';
import { createApiKey, revokeApiKey } from '../src/accounts/api-keys.ts';
import { getMe } from '../src/accounts/accounts.ts';
import { createLocalAuth, PRINCIPALS_CHANNEL } from '../src/accounts/local-auth.ts';

const auth = { ...defaultAuthSettings, appUrl: 'http://localhost' };

/** A view of the store that counts the statements sent through it. */
function counting(db: Database): { db: Database; statements: () => number } {
  let statements = 0;
  const counted = new Set(['execute', 'select', 'insert', 'update', 'delete', 'transaction']);
  const proxy = new Proxy(db, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof property === 'string' && counted.has(property) && typeof value === 'function')
        return (...args: unknown[]) => {
          statements += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      return value;
    },
  });
  return { db: proxy, statements: () => statements };
}

describe.each(await testStoreKinds())('authenticating a request on %s', (kind) => {
  let store: TestStore;

  beforeAll(async () => {
    store = await createTestStore(kind);
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  async function person(): Promise<{ userId: string; email: string; personal: string }> {
    const userId = newId('usr');
    const personal = newId('wks');
    const email = `${userId}@example.com`;
    await store.db.insert(users).values({ id: userId, email, passwordHash: 'x', name: null });
    await store.db
      .insert(workspaces)
      .values({ id: personal, name: 'Mine', ownerUserId: userId, plan: 'free', personal: true });
    await store.db.insert(workspaceMembers).values({ workspaceId: personal, userId, role: 'owner' });
    return { userId, email, personal };
  }

  async function teamOf(ownerId: string, memberId: string): Promise<string> {
    const team = newId('wks');
    await store.db
      .insert(workspaces)
      .values({ id: team, name: 'Team', ownerUserId: ownerId, plan: 'team', personal: false });
    await store.db.insert(workspaceMembers).values([
      { workspaceId: team, userId: ownerId, role: 'owner' },
      { workspaceId: team, userId: memberId, role: 'member' },
    ]);
    return team;
  }

  const rate = (limit: number, cost = 1): RateLimitHit => ({ limit, windowSeconds: 60, cost });

  it('resolves an API key and counts its request in one statement; a revoked key is nobody', async () => {
    const owner = await person();
    const { key, summary } = await createApiKey({ db: store.db }, { email: owner.email });
    const { db, statements } = counting(store.db);

    const first = await authenticate({ db, auth }, { apiKey: key }, rate(20));
    expect(statements()).toBe(1);
    expect(first?.principal).toEqual({
      userId: owner.userId,
      email: owner.email,
      workspaceId: owner.personal,
      role: 'owner',
      plan: 'free',
      authMethod: 'api_key',
      apiKeyId: summary.id,
      account: {
        name: null,
        emailVerified: false,
        createdAt: expect.any(Date) as Date,
        workspaceName: 'Mine',
        personal: true,
      },
    });
    // What `/auth/me` answers from it is what reading the account apart gives.
    const { account: _account, ...bare } = first!.principal;
    expect(await getMe({ db: store.db }, first!.principal)).toEqual(await getMe({ db: store.db }, bare));
    expect(first?.hit).toMatchObject({ count: 1, limit: 20, remaining: 19, allowed: true });
    const second = await authenticate({ db, auth }, { apiKey: key }, rate(20, 3));
    expect(second?.hit).toMatchObject({ count: 4, remaining: 16 });
    expect(statements()).toBe(2);
    // The key's use is recorded by the same statement.
    const [row] = await store.db.select().from(apiKeys).where(eq(apiKeys.id, summary.id));
    expect(row?.lastUsedAt).not.toBeNull();

    await revokeApiKey({ db: store.db }, summary.prefix);
    expect(await authenticate({ db, auth }, { apiKey: key }, rate(20))).toBeUndefined();
    // Nobody is counted for a credential that is not one.
    const [counter] = await store.db
      .select()
      .from(rateLimitCounters)
      .where(eq(rateLimitCounters.key, `api:key:${summary.id}`));
    expect(counter?.count).toBe(4);
    // Not a key at all: no statement.
    const before = statements();
    expect(await authenticate({ db, auth }, { apiKey: 'aqs_nope' }, rate(20))).toBeUndefined();
    expect(statements()).toBe(before);
  });

  it("a key stops working when its user leaves the key's workspace", async () => {
    const owner = await person();
    const member = await person();
    const team = await teamOf(owner.userId, member.userId);
    const { key } = await createApiKey({ db: store.db }, { email: member.email, workspaceId: team });
    expect((await authenticate({ db: store.db, auth }, { apiKey: key }))?.principal).toMatchObject({
      workspaceId: team,
      role: 'member',
      plan: 'team',
    });
    await store.db
      .delete(workspaceMembers)
      .where(and(eq(workspaceMembers.workspaceId, team), eq(workspaceMembers.userId, member.userId)));
    expect(await authenticate({ db: store.db, auth }, { apiKey: key })).toBeUndefined();
  });

  it('a session works in the selected workspace while a member, else in the personal one', async () => {
    const owner = await person();
    const member = await person();
    const team = await teamOf(owner.userId, member.userId);
    await store.db.update(users).set({ currentWorkspaceId: team }).where(eq(users.id, member.userId));
    const session = await issueSession({ db: store.db, auth }, member.userId, null);
    const { db, statements } = counting(store.db);

    const inTeam = await authenticate({ db, auth }, { sessionToken: session.token }, rate(20));
    expect(statements()).toBe(1);
    expect(inTeam?.principal).toMatchObject({
      userId: member.userId,
      email: member.email,
      workspaceId: team,
      role: 'member',
      plan: 'team',
      authMethod: 'session',
      sessionId: session.sessionId,
      account: { workspaceName: 'Team', personal: false },
    });
    const { account: _account, ...bare } = inTeam!.principal;
    expect(await getMe({ db: store.db }, inTeam!.principal)).toEqual(await getMe({ db: store.db }, bare));
    expect(inTeam?.hit).toMatchObject({ count: 1, allowed: true });

    await store.db
      .delete(workspaceMembers)
      .where(and(eq(workspaceMembers.workspaceId, team), eq(workspaceMembers.userId, member.userId)));
    const back = await authenticate({ db, auth }, { sessionToken: session.token }, rate(20));
    expect(back?.principal).toMatchObject({ workspaceId: member.personal, role: 'owner', plan: 'free' });
    // The limit is the user's, wherever they work.
    expect(back?.hit?.count).toBe(2);
  });

  it('a session expires when idle or at its absolute end (and is deleted); its last use is written once a minute', async () => {
    const { userId } = await person();
    const start = new Date('2026-03-02T10:00:00Z');
    let now = start;
    const deps = { db: store.db, auth, now: () => now };
    const session = await issueSession(deps, userId, null);
    const lastSeen = async () =>
      (await store.db.select().from(sessions).where(eq(sessions.id, session.sessionId)))[0]?.lastSeenAt;

    now = new Date(start.getTime() + 30_000);
    expect(await authenticate(deps, { sessionToken: session.token })).toBeDefined();
    expect((await lastSeen())?.getTime()).toBe(start.getTime());
    now = new Date(start.getTime() + 61_000);
    expect(await authenticate(deps, { sessionToken: session.token })).toBeDefined();
    expect((await lastSeen())?.getTime()).toBe(now.getTime());

    // Idle for longer than the idle expiry: gone, and deleted.
    now = new Date(now.getTime() + auth.sessionIdleSeconds * 1000);
    expect(await authenticate(deps, { sessionToken: session.token })).toBeUndefined();
    expect(await lastSeen()).toBeUndefined();

    // Kept alive, a session still ends at its absolute expiry.
    now = start;
    const kept = await issueSession(deps, userId, null);
    for (let t = 0; t * 86_400_000 < auth.sessionAbsoluteSeconds * 1000; t += 1) {
      now = new Date(start.getTime() + t * 86_400_000);
      expect(await authenticate(deps, { sessionToken: kept.token }), `day ${t}`).toBeDefined();
    }
    now = new Date(start.getTime() + auth.sessionAbsoluteSeconds * 1000);
    expect(await authenticate(deps, { sessionToken: kept.token })).toBeUndefined();
  });

  it('N concurrent requests over the limit: exactly the limit pass', async () => {
    const owner = await person();
    const { key } = await createApiKey({ db: store.db }, { email: owner.email });
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => authenticate({ db: store.db, auth }, { apiKey: key }, rate(20))),
    );
    expect(answers.filter((a) => a?.hit?.allowed).length).toBe(20);
    expect(new Set(answers.map((a) => a?.hit?.count)).size).toBe(30);
  });
});

// The embedded store's owner keeps principals and windows in memory; every change the store announces
// must reach it before the changing statement returns.
describe('authenticating with principals kept in memory (the embedded store)', () => {
  let store: TestStore;
  const localAuth = createLocalAuth();

  beforeAll(async () => {
    store = await createTestStore('pglite');
    await store.listen(PRINCIPALS_CHANNEL, () => localAuth.forget());
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  async function member(plan: 'free' | 'team' = 'team') {
    const ownerId = newId('usr');
    const memberId = newId('usr');
    const team = newId('wks');
    const personal = newId('wks');
    await store.db.insert(users).values([
      { id: ownerId, email: `${ownerId}@example.com`, passwordHash: 'x' },
      { id: memberId, email: `${memberId}@example.com`, passwordHash: 'x', currentWorkspaceId: team },
    ]);
    await store.db.insert(workspaces).values([
      { id: team, name: 'Team', ownerUserId: ownerId, plan, personal: false },
      { id: personal, name: 'Mine', ownerUserId: memberId, plan: 'free', personal: true },
    ]);
    await store.db.insert(workspaceMembers).values([
      { workspaceId: team, userId: ownerId, role: 'owner' },
      { workspaceId: team, userId: memberId, role: 'member' },
      { workspaceId: personal, userId: memberId, role: 'owner' },
    ]);
    return { memberId, email: `${memberId}@example.com`, team, personal };
  }

  it('answers a known credential without a statement and counts its window exactly in memory', async () => {
    const { email, team } = await member();
    const { key } = await createApiKey({ db: store.db }, { email, workspaceId: team });
    const { db, statements } = counting(store.db);
    const deps = { db, auth, localAuth };
    expect(
      (await authenticate(deps, { apiKey: key }, { limit: 5, windowSeconds: 60, cost: 1 }))?.hit?.count,
    ).toBe(1);
    expect(statements()).toBe(1);
    const answers = await Promise.all(
      Array.from({ length: 9 }, () =>
        authenticate(deps, { apiKey: key }, { limit: 5, windowSeconds: 60, cost: 1 }),
      ),
    );
    expect(statements()).toBe(1);
    expect(answers.filter((a) => a?.hit?.allowed)).toHaveLength(4);
    expect(answers.map((a) => a?.hit?.count).sort((x, y) => x! - y!)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('forgets at once: a revoked key, an ended session, a removed member, a plan change, a confirmed email', async () => {
    const { memberId, email, team, personal } = await member();
    const { key, summary } = await createApiKey({ db: store.db }, { email, workspaceId: team });
    const session = await issueSession({ db: store.db, auth }, memberId, null);
    const deps = { db: store.db, auth, localAuth };
    const byKey = () => authenticate(deps, { apiKey: key });
    const bySession = () => authenticate(deps, { sessionToken: session.token });

    expect((await byKey())?.principal.plan).toBe('team');
    expect((await bySession())?.principal.account?.emailVerified).toBe(false);
    await store.db.update(workspaces).set({ plan: 'pro' }).where(eq(workspaces.id, team));
    expect((await byKey())?.principal.plan).toBe('pro');
    await store.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, memberId));
    expect((await bySession())?.principal.account?.emailVerified).toBe(true);

    await store.db
      .delete(workspaceMembers)
      .where(and(eq(workspaceMembers.workspaceId, team), eq(workspaceMembers.userId, memberId)));
    expect(await byKey()).toBeUndefined();
    expect((await bySession())?.principal.workspaceId).toBe(personal);

    const { key: second, summary: secondSummary } = await createApiKey(
      { db: store.db },
      { email, workspaceId: personal },
    );
    expect(await authenticate(deps, { apiKey: second })).toBeDefined();
    await revokeApiKey({ db: store.db }, secondSummary.prefix);
    expect(await authenticate(deps, { apiKey: second })).toBeUndefined();
    expect(summary.id).not.toBe(secondSummary.id);

    await store.db.delete(sessions).where(eq(sessions.id, session.sessionId));
    expect(await bySession()).toBeUndefined();
  });

  it('a read announces nothing (a last use written, no expired session deleted), so the next costs no statement; a principal read before a change is not kept', async () => {
    const { memberId, email, team } = await member();
    const { key } = await createApiKey({ db: store.db }, { email, workspaceId: team });
    const session = await issueSession({ db: store.db, auth }, memberId, null);
    const { db, statements } = counting(store.db);
    const before = localAuth.generation();
    // The first reads write last_used_at and last_seen_at, and try to delete the session if expired.
    const now = () => new Date(Date.now() + 120_000);
    const first = await authenticate({ db, auth, localAuth, now }, { apiKey: key });
    await authenticate({ db, auth, localAuth, now }, { sessionToken: session.token });
    expect(localAuth.generation()).toBe(before);
    expect(statements()).toBe(2);
    await authenticate({ db, auth, localAuth, now }, { apiKey: key });
    await authenticate({ db, auth, localAuth, now }, { sessionToken: session.token });
    expect(statements()).toBe(2);

    const readAt = localAuth.generation();
    localAuth.forget();
    localAuth.remember('key:stale', first!.principal, Date.now() + 60_000, readAt);
    expect(localAuth.recall('key:stale', new Date())).toBeUndefined();
  });

  it('a kept session still ends at its absolute expiry', async () => {
    const { memberId } = await member();
    const start = new Date(Date.now());
    let now = start;
    const deps = { db: store.db, auth, localAuth, now: () => now };
    const session = await issueSession(deps, memberId, null);
    expect(await authenticate(deps, { sessionToken: session.token })).toBeDefined();
    // Kept for at most a minute, and never past the session's end.
    now = new Date(start.getTime() + auth.sessionAbsoluteSeconds * 1000);
    expect(await authenticate(deps, { sessionToken: session.token })).toBeUndefined();
  });
});
