import { beforeAll, describe, expect, it } from 'vitest';
import type { RunResult, TableArtifact } from '@aqs/contracts';
import { codeOf, demoConnectionId, problemOf, signedIn, type Caller } from './harness.ts';

let caller: Caller;
let demoId: string;
let source: RunResult;
/** Where the status value sits in the source run's QuerySpec. */
let statusTarget: string;

const STATUSES = ['placed', 'paid', 'shipped', 'delivered', 'cancelled', 'returned'];

/** The JSON Pointer of the first place in `value` holding exactly `wanted`. */
function pointerTo(value: unknown, wanted: unknown, path = ''): string | null {
  if (value === wanted) return path;
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, child] of Object.entries(value)) {
    const found = pointerTo(child, wanted, `${path}/${key}`);
    if (found !== null) return found;
  }
  return null;
}

const countOf = (run: RunResult) =>
  (run.artifacts.find((a) => a.kind === 'table') as TableArtifact).rows[0]![0];

function statusTemplate(overrides: Record<string, unknown> = {}) {
  return {
    id: demoId,
    name: 'Orders in a status',
    question: 'how many {{status}} orders',
    run_id: source.id,
    parameters: [
      { name: 'status', type: 'enum' as const, values: STATUSES, default: 'cancelled', target: statusTarget },
    ],
    ...overrides,
  };
}

beforeAll(async () => {
  ({ caller } = await signedIn());
  demoId = await demoConnectionId(caller);
  source = await caller.runs.run({ question: 'count the cancelled orders', connection_id: demoId });
  expect(source.status).toBe('succeeded');
  statusTarget = pointerTo(source.query_spec, 'cancelled')!;
  expect(statusTarget).toMatch(/\/value$/);
}, 120_000);

describe('templates: save, list, replace, delete', () => {
  it('saves a template from a run with its QuerySpec, lists it, replaces it and deletes it', async () => {
    const created = await caller.templates.create(statusTemplate());
    expect(created).toMatchObject({
      connection_id: demoId,
      question: 'how many {{status}} orders',
      source_run_id: source.id,
      query_spec: source.query_spec,
    });
    expect((await caller.templates.list({ id: demoId })).templates.map((t) => t.id)).toContain(created.id);
    const replaced = await caller.templates.update({
      template_id: created.id,
      name: 'Orders by status',
      question: 'number of {{status}} orders',
      parameters: statusTemplate().parameters,
    });
    expect(replaced).toMatchObject({ name: 'Orders by status', question: 'number of {{status}} orders' });
    await caller.templates.delete({ template_id: created.id });
    expect((await caller.templates.list({ id: demoId })).templates.map((t) => t.id)).not.toContain(
      created.id,
    );
    expect(await codeOf(caller.templates.delete({ template_id: created.id }))).toBe('NOT_FOUND');
  });

  it('422 names the field: a parameter missing from the question, a placeholder without a parameter, a target that binds nothing, a bad default', async () => {
    const notInQuestion = await problemOf(
      caller.templates.create(statusTemplate({ question: 'how many orders' })),
    );
    expect(notInQuestion.status).toBe(422);
    expect(notInQuestion.body.errors?.map((e) => e.field)).toContain('parameters.0.name');

    const orphan = await problemOf(
      caller.templates.create(statusTemplate({ question: 'how many {{status}} orders in {{country}}' })),
    );
    expect(orphan.body.errors?.map((e) => e.field)).toContain('question');

    const bare = await problemOf(caller.templates.create(statusTemplate({ question: '{{status}} orders' })));
    expect(bare.body.errors?.map((e) => e.field)).toContain('question');

    const [parameter] = statusTemplate().parameters;
    const badTarget = await problemOf(
      caller.templates.create(statusTemplate({ parameters: [{ ...parameter, target: '/source' }] })),
    );
    expect(badTarget.body.errors?.map((e) => e.field)).toContain('parameters.0.target');

    const badDefault = await problemOf(
      caller.templates.create(statusTemplate({ parameters: [{ ...parameter, default: 'lost' }] })),
    );
    expect(badDefault.body.errors?.map((e) => e.field)).toContain('parameters.0.default');
  });

  it('refuses a run of another connection or one that did not succeed, naming run_id', async () => {
    const failed = await caller.runs.run({ question: 'what is the meaning of life', connection_id: demoId });
    const refused = await problemOf(caller.templates.create(statusTemplate({ run_id: failed.id })));
    expect(refused.status).toBe(422);
    expect(refused.body.errors?.[0]?.field).toBe('run_id');
  });
});

describe('running a template', () => {
  it('skips the planner, binds the value and answers as the question would be answered', async () => {
    const asked = await caller.runs.run({ question: 'how many returned orders', connection_id: demoId });
    expect(asked.planner).toBe('offline');
    const template = await caller.templates.create(statusTemplate());
    const run = await caller.runs.run({
      connection_id: demoId,
      template: { id: template.id, parameters: { status: 'returned' } },
    });
    expect(run).toMatchObject({
      status: 'succeeded',
      planner: 'template',
      question: 'how many returned orders',
    });
    expect(run.query!.text).toContain("'returned'");
    expect(countOf(run)).toEqual(countOf(asked));
    // Without a value the default is used.
    const byDefault = await caller.runs.run({ connection_id: demoId, template: { id: template.id } });
    expect(countOf(byDefault)).toEqual(countOf(source));
    await caller.templates.delete({ template_id: template.id });
  });

  it("draws the chart type the template's question names", async () => {
    const perChannel = await caller.runs.run({
      question: 'number of orders per channel',
      connection_id: demoId,
    });
    const template = await caller.templates.create({
      id: demoId,
      name: 'Channels',
      question: 'orders per channel as a pie chart',
      parameters: [],
      run_id: perChannel.id,
    });
    const run = await caller.runs.run({ connection_id: demoId, template: { id: template.id } });
    expect(run.artifacts.find((a) => a.kind === 'chart')).toMatchObject({ chart_type: 'pie' });
    expect(run.warnings.map((w) => w.message)).toContain('Answered by the saved question “Channels”.');
    await caller.templates.delete({ template_id: template.id });
  });

  it('answers a question that says the template with a value in the parameter position', async () => {
    const template = await caller.templates.create(
      statusTemplate({ question: 'count of orders with status {{status}}' }),
    );
    const run = await caller.runs.run({
      question: 'Count of orders with status Shipped?',
      connection_id: demoId,
    });
    expect(run.planner).toBe('template');
    expect(run.query!.text).toContain("'shipped'");
    await caller.templates.delete({ template_id: template.id });
  });

  it('refuses values that do not fit the parameter, and never splices a value into the query text', async () => {
    const [parameter] = statusTemplate().parameters;
    const asText = await caller.templates.create(
      statusTemplate({ parameters: [{ ...parameter, type: 'string', values: undefined }] }),
    );
    const injected = "x' OR '1'='1";
    const run = await caller.runs.run({
      connection_id: demoId,
      template: { id: asText.id, parameters: { status: injected } },
    });
    expect(run.status).toBe('succeeded');
    expect(countOf(run)).toEqual(0);
    expect(run.query!.text).toContain("'x'' OR ''1''=''1'");

    const enumTemplate = await caller.templates.create(statusTemplate());
    const outside = await problemOf(
      caller.runs.run({
        connection_id: demoId,
        template: { id: enumTemplate.id, parameters: { status: 'lost' } },
      }),
    );
    expect(outside.status).toBe(422);
    expect(outside.body.errors?.[0]?.field).toBe('template.parameters.status');
    const unknown = await problemOf(
      caller.runs.run({
        connection_id: demoId,
        template: { id: enumTemplate.id, parameters: { year: 2025 } },
      }),
    );
    expect(unknown.body.errors?.[0]?.field).toBe('template.parameters.year');
  });

  it('a template of another workspace is a 404; of another connection a 422 naming template.id', async () => {
    const template = await caller.templates.create(statusTemplate());
    const { caller: other } = await signedIn();
    const otherDemo = await demoConnectionId(other);
    expect(await codeOf(other.runs.run({ connection_id: otherDemo, template: { id: template.id } }))).toBe(
      'NOT_FOUND',
    );
    const es = await caller.connections.create({
      name: 'Elsewhere',
      dialect: 'postgres',
      auth_mode: 'password',
      config: { host: '127.0.0.1', port: 5432, database: 'postgres', username: 'postgres', password: 'x' },
    });
    const refused = await problemOf(caller.runs.run({ connection_id: es.id, template: { id: template.id } }));
    expect(refused.status).toBe(422);
    expect(refused.body.errors?.[0]?.field).toBe('template.id');
    const missing = await problemOf(caller.runs.run({ connection_id: demoId } as never));
    expect(missing.body.errors?.[0]?.field).toBe('question');
  });
});
