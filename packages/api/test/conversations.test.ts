import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureDir, startTestCluster, type TestCluster } from '@aqs/es-test-cluster';
import { closePools, codeOf, demoConnectionId, signedIn, type Caller } from './harness.ts';

let cluster: TestCluster;
let caller: Caller;
let esId: string;

beforeAll(async () => {
  cluster = await startTestCluster({ fixtures: fixtureDir('weblogs'), version: '8.15.0' });
  ({ caller } = await signedIn());
  const es = await caller.connections.create({
    name: 'Web logs',
    dialect: 'elasticsearch',
    auth_mode: 'basic',
    config: {
      cluster_url: cluster.url,
      username: 'elastic',
      password: 'changeme',
      allowed_indices: ['weblogs'],
    },
  });
  esId = es.id;
});

afterAll(async () => {
  await closePools();
  await cluster?.stop();
});

describe('conversations', () => {
  it('continues a conversation, lists it, truncates it and replays a question in place', async () => {
    const first = await caller.runs.run({ question: 'number of requests per country', connection_id: esId });
    const conversationId = first.conversation_id;
    const second = await caller.runs.run({
      question: 'now by month',
      connection_id: esId,
      conversation_id: conversationId,
    });
    expect(second).toMatchObject({ conversation_id: conversationId, turn_index: 1, status: 'succeeded' });
    const third = await caller.runs.run({
      question: 'as a line graph',
      connection_id: esId,
      conversation_id: conversationId,
    });
    expect(third.turn_index).toBe(2);

    const detail = await caller.conversations.get({ id: conversationId });
    expect(detail).toMatchObject({
      id: conversationId,
      turn_count: 3,
      connection_id: esId,
      title: 'number of requests per country',
    });
    expect(detail.runs.map((r) => r.turn_index)).toEqual([0, 1, 2]);
    const list = await caller.conversations.list({ connection_id: esId, limit: 1 });
    expect(list.conversations[0]!.id).toBe(conversationId);
    expect(list.limit).toBe(1);

    const truncated = await caller.conversations.truncate({ id: conversationId, from_turn_index: 1 });
    expect(truncated.removed).toBe(2);
    const { runs } = await caller.conversations.runs({ id: conversationId });
    expect(runs.map((r) => r.turn_index)).toEqual([0]);
    const replay = await caller.runs.run({
      question: 'now by month',
      connection_id: esId,
      conversation_id: conversationId,
    });
    expect(replay.turn_index).toBe(1);

    expect((await caller.conversations.delete({ id: conversationId })).detail).toBe('Conversation deleted.');
    expect(await codeOf(caller.conversations.get({ id: conversationId }))).toBe('NOT_FOUND');
    expect(await codeOf(caller.runs.get({ run_id: first.id }))).toBe('NOT_FOUND');
  });

  it('answers a question on the demo shop, keeps it in a conversation, lists it, and deletes the conversation', async () => {
    const { caller: user } = await signedIn();
    const connectionId = await demoConnectionId(user);
    const run = await user.runs.run({
      question: 'how many orders',
      connection_id: connectionId,
      chart_requested: false,
    });
    expect(run.status).toBe('succeeded');
    expect(run.query?.dialect).toBe('sql');
    const table = run.artifacts.find((a) => a.kind === 'table');
    expect(table && table.kind === 'table' ? table.rows : null).toEqual([[expect.any(Number)]]);

    expect((await user.runs.get({ run_id: run.id })).id).toBe(run.id);
    expect((await user.runs.list({ limit: 10, offset: 0 })).runs.map((r) => r.id)).toContain(run.id);
    const conversation = await user.conversations.get({ id: run.conversation_id });
    expect(conversation.runs.map((r) => r.id)).toEqual([run.id]);

    await user.conversations.delete({ id: run.conversation_id });
    expect(await codeOf(user.conversations.get({ id: run.conversation_id }))).toBe('NOT_FOUND');
    expect(await codeOf(user.runs.get({ run_id: run.id }))).toBe('NOT_FOUND');
  });
});
