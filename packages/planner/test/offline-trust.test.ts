import { describe, expect, it } from 'vitest';
import type { Introspection, IntrospectedColumn } from '@aqs/connectors';
import type { Condition, QuerySpec } from '@aqs/contracts';
import {
  fromIntrospection,
  offlinePlanner,
  PlanningError,
  validateSpecAgainstSchema,
  type Plan,
  type PlannerSchema,
} from '../src/index.ts';
import { capabilitiesOf, shopSchema } from './fixtures.ts';

/**
 * Readings that keep an answer right or refuse it: what a question says must reach the plan (a
 * negation, `how many`, a top N), periods apply to the rows measured, values are not read into
 * everyday words, and event indices are read as events. Phrasings are the planner's own examples over
 * two small sources made for these tests, never evaluation questions.
 */
const now = new Date('2024-11-20T12:00:00Z');

function col(name: string, type: string, description: string | null = null): IntrospectedColumn {
  return { name, type, native_type: type, nullable: true, queryable: true, description, note: null };
}

/** A PostgreSQL source of one schema: tables as [name, columns, primary key, foreign keys as [column, table, column]]. */
function postgresSource(
  schema: string,
  tables: [string, IntrospectedColumn[], string[], [string, string, string][]?][],
  samples: Record<string, Record<string, string[]>>,
): PlannerSchema {
  const introspection: Introspection = {
    dialect: 'postgres',
    schemas: [{ name: schema, table_count: tables.length }],
    server_version: '16.2',
    warnings: [],
    tables: tables.map(([name, columns, pk, fks = []]) => ({
      name,
      schema,
      kind: 'table' as const,
      columns,
      primary_key: pk,
      row_estimate: null,
      members: [],
      warnings: [],
      foreign_keys: fks.map(([c, table, rc]) => ({
        columns: [c],
        references: { schema, table, columns: [rc] },
      })),
    })),
  };
  return fromIntrospection(introspection, capabilitiesOf(introspection.dialect), { samples });
}

/** A small HR source: staff in offices, their absences, and their appraisals. */
function staffSchema(): PlannerSchema {
  return postgresSource(
    'people',
    [
      ['offices', [col('office_id', 'integer'), col('city', 'text')], ['office_id']],
      [
        'staff',
        [
          col('staff_id', 'integer'),
          col('full_name', 'text'),
          col('office_id', 'integer'),
          col('contract', 'text'),
          col('hired_on', 'date'),
          col('left_on', 'date', 'last working day; NULL while employed'),
        ],
        ['staff_id'],
        [['office_id', 'offices', 'office_id']],
      ],
      [
        'absences',
        [
          col('absence_id', 'integer'),
          col('staff_id', 'integer'),
          col('kind', 'text'),
          col('first_day', 'date'),
          col('days', 'numeric(5,1)'),
          col('logged_at', 'timestamp with time zone'),
        ],
        ['absence_id'],
        [['staff_id', 'staff', 'staff_id']],
      ],
      [
        'appraisals',
        [
          col('appraisal_id', 'integer'),
          col('staff_id', 'integer'),
          col('cycle', 'text'),
          col('score', 'numeric(3,1)'),
          col('signed_at', 'timestamp with time zone'),
        ],
        ['appraisal_id'],
        [['staff_id', 'staff', 'staff_id']],
      ],
    ],
    {
      'people.offices': { city: ['Leeds', 'Bristol', 'Glasgow'] },
      'people.staff': { contract: ['Permanent', 'Part-time', 'Fixed-term'] },
      'people.absences': { kind: ['Sick', 'Holiday', 'Jury Duty'] },
      'people.appraisals': { cycle: ['2023 H2', '2024 H1', '2024 H2'] },
    },
  );
}

/** An index of mixed application events: page views and purchases, log lines, requests. */
function eventsSchema(): PlannerSchema {
  const columns = [
    col('@timestamp', 'date'),
    col('event.action', 'keyword'),
    col('session.id', 'keyword'),
    col('order.total', 'double'),
    col('refund.amount', 'double'),
    col('log.level', 'keyword'),
    col('service.name', 'keyword'),
    col('host.name', 'keyword'),
    col('http.request.method', 'keyword'),
    col('event.duration', 'long'),
    col('user.created', 'date'),
    col('user.segment', 'keyword'),
    col('order.id', 'keyword'),
    col('order.item_count', 'integer'),
  ];
  const introspection: Introspection = {
    dialect: 'elasticsearch',
    schemas: [{ name: 'app-events', table_count: 1 }],
    tables: [
      {
        name: 'app-events',
        schema: null,
        kind: 'index',
        columns,
        primary_key: [],
        foreign_keys: [],
        row_estimate: 1000,
        members: [],
        warnings: [],
      },
    ],
    warnings: [],
    server_version: '8.15.0',
  };
  return fromIntrospection(introspection, capabilitiesOf(introspection.dialect), {
    samples: {
      'app-events': {
        'event.action': ['page_view', 'add_to_cart', 'purchase', 'refund'],
        'log.level': ['debug', 'info', 'warn', 'error', 'fatal'],
        'service.name': ['checkout', 'search', 'gateway'],
        'host.name': ['web-1', 'web-2'],
        'http.request.method': ['GET', 'POST'],
        'user.segment': ['new', 'returning'],
      },
    },
  });
}

/** Clients and their invoices, which are paid, open or void. */
function billingSchema(): PlannerSchema {
  return postgresSource(
    'billing',
    [
      [
        'clients',
        [col('client_id', 'integer'), col('name', 'text'), col('signed_up_on', 'date')],
        ['client_id'],
      ],
      [
        'contacts',
        [
          col('contact_id', 'integer'),
          col('client_id', 'integer'),
          col('email', 'text'),
          col('created_at', 'timestamp with time zone'),
        ],
        ['contact_id'],
        [['client_id', 'clients', 'client_id']],
      ],
      [
        'invoices',
        [
          col('invoice_id', 'integer'),
          col('client_id', 'integer'),
          col('issued_on', 'date'),
          col('paid_on', 'date'),
          col('status', 'text'),
          col('amount', 'numeric(10,2)'),
        ],
        ['invoice_id'],
        [['client_id', 'clients', 'client_id']],
      ],
    ],
    {
      'billing.clients': { name: ['Harbor Labs', 'Quill & Co'] },
      'billing.invoices': { status: ['paid', 'open', 'void'] },
    },
  );
}

/** Appointments (visits) booked for a later time, and bills issued before they are paid. */
function surgerySchema(): PlannerSchema {
  return postgresSource(
    'surgery',
    [
      [
        'appointments',
        [
          col('appointment_id', 'integer'),
          col('booked_at', 'timestamp with time zone'),
          col('scheduled_start', 'timestamp with time zone'),
          col('reason', 'text'),
          col('visit_type', 'text'),
          col('rating', 'smallint', 'patient rating 1-5, when given'),
        ],
        ['appointment_id'],
      ],
      [
        'bills',
        [
          col('bill_id', 'integer'),
          col('paid_date', 'date'),
          col('issued_on', 'date'),
          col('amount', 'numeric(10,2)'),
          col('refunded', 'numeric(10,2)'),
        ],
        ['bill_id'],
      ],
    ],
    { 'surgery.appointments': { reason: ['checkup', 'injury'], visit_type: ['in person', 'phone'] } },
  );
}

/** CI builds: one row per build, with its branch, status and number of failed tests. */
function ciSchema(): PlannerSchema {
  return postgresSource(
    'ci',
    [
      [
        'builds',
        [
          col('build_id', 'integer'),
          col('branch', 'text'),
          col('status', 'text'),
          col('failed', 'integer', 'number of failed tests'),
          col('packages_published', 'integer'),
          col('trigger', 'text'),
          col('runner_type', 'text'),
          col('duration_ms', 'bigint'),
          col('started_at', 'timestamp with time zone'),
        ],
        ['build_id'],
      ],
    ],
    {
      'ci.builds': {
        status: ['success', 'failure', 'cancelled'],
        branch: ['main', 'release'],
        trigger: ['push', 'schedule'],
        runner_type: ['hosted', 'self-hosted'],
      },
    },
  );
}

/** Drivers, flagged active or not, and the vehicles assigned to them, whose status may also be `active`. */
function crewSchema(): PlannerSchema {
  return postgresSource(
    'crew',
    [
      [
        'drivers',
        [col('driver_id', 'integer'), col('full_name', 'text'), col('is_active', 'boolean')],
        ['driver_id'],
      ],
      [
        'vehicles',
        [col('vehicle_id', 'integer'), col('driver_id', 'integer'), col('status', 'text')],
        ['vehicle_id'],
        [['driver_id', 'drivers', 'driver_id']],
      ],
      [
        'repairs',
        [
          col('repair_id', 'integer'),
          col('vehicle_id', 'integer'),
          col('cost', 'numeric(10,2)'),
          col('repaired_on', 'date'),
        ],
        ['repair_id'],
        [['vehicle_id', 'vehicles', 'vehicle_id']],
      ],
    ],
    { 'crew.vehicles': { status: ['active', 'retired'] } },
  );
}

/** People and their leave requests, which are approved, pending or rejected. */
function leaveSchema(): PlannerSchema {
  return postgresSource(
    'hrm',
    [
      ['people', [col('person_id', 'integer'), col('full_name', 'text')], ['person_id']],
      [
        'leave_requests',
        [
          col('request_id', 'integer'),
          col('person_id', 'integer'),
          col('leave_type', 'text'),
          col('status', 'text'),
          col('days', 'numeric(4,1)'),
          col('start_date', 'date'),
        ],
        ['request_id'],
        [['person_id', 'people', 'person_id']],
      ],
    ],
    { 'hrm.leave_requests': { leave_type: ['Sick', 'Annual'], status: ['Approved', 'Pending', 'Rejected'] } },
  );
}

const staff = staffSchema();
const events = eventsSchema();
const shop = shopSchema();
const surgery = surgerySchema();
const ci = ciSchema();
const crew = crewSchema();
const billing = billingSchema();

async function plan(
  schema: PlannerSchema,
  question: string,
  history: Plan[] = [],
  questions: string[] = [],
): Promise<Plan> {
  const turns = history.map((p, i) => ({
    question: questions[i] ?? '',
    spec: p.spec,
    chart_type: p.chart_type,
  }));
  const p = await offlinePlanner.plan({ question, schema, history: turns, chartRequested: false, now });
  expect(validateSpecAgainstSchema(p.spec, schema)).toEqual([]);
  return p;
}

async function refusal(schema: PlannerSchema, question: string): Promise<PlanningError> {
  const error = await offlinePlanner
    .plan({ question, schema, history: [], chartRequested: false, now })
    .catch((e: unknown) => e);
  expect(error, question).toBeInstanceOf(PlanningError);
  return error as PlanningError;
}

function leaves(spec: QuerySpec): Condition[] {
  const out: Condition[] = [];
  const walk = (c: Condition | null | undefined): void => {
    if (!c) return;
    if (c.op === 'and' || c.op === 'or') c.conditions.forEach(walk);
    else out.push(c);
  };
  walk(spec.filter);
  return out;
}

describe('what the question says reaches the plan, or it is refused', () => {
  it('narrowing a word to one table for a question leaves it whole for the next question on the same schema', async () => {
    const org = postgresSource(
      'org',
      [
        ['offices', [col('office_id', 'integer'), col('name', 'text'), col('city', 'text')], ['office_id']],
        [
          'staff',
          [col('staff_id', 'integer'), col('name', 'text'), col('office_id', 'integer')],
          ['staff_id'],
          [['office_id', 'offices', 'office_id']],
        ],
      ],
      {},
    );
    for (const [question, table] of [
      ['names of staff', 'org.staff'],
      ['names of offices', 'org.offices'],
      ['names of staff', 'org.staff'],
    ] as const)
      expect((await plan(org, question)).spec.source, question).toBe(table);
  });

  it("words that name Object's members (constructor, __proto__, valueOf) are unknown words, not built-in entries", async () => {
    for (const question of [
      'constructor of orders',
      'total constructor per month',
      'how many orders by __proto__',
      'valueOf revenue by category',
      'orders in hasOwnProperty',
    ])
      expect((await refusal(shop, question)).message, question).toMatch(/could not find what/);
  });

  it('a negation the plan cannot carry is refused rather than dropped', async () => {
    expect((await refusal(shop, 'how many customers have never been contacted')).message).toMatch(/never/);
  });

  it('a participle that is a form of a status says which rows, even where a count column has its name', async () => {
    const p = await plan(ci, 'how many failed builds in October 2024');
    expect(leaves(p.spec)).toContainEqual({ op: 'eq', column: { column: 'status' }, value: 'failure' });
    expect(p.spec.aggregates).toEqual([{ fn: 'count', alias: 'count' }]);
    const since = await plan(ci, 'how many builds failed since March 2024');
    expect(leaves(since.spec)).toContainEqual({ op: 'eq', column: { column: 'status' }, value: 'failure' });
  });

  it("a column said before `of <table>` is that table's or its parent's, never a child's of the same name", async () => {
    expect((await refusal(staff, 'names of offices')).message).toMatch(/names of offices/);
    const p = await plan(staff, 'names of appraisals with a score over 4');
    expect(p.spec.columns).toEqual([{ table: 'people.staff', column: 'full_name' }]);
  });

  it('a word that is both another name for a table and one of its values is the value (`a van` among vehicles)', async () => {
    const depot = postgresSource(
      'depot',
      [
        [
          'vehicles',
          [
            col('vehicle_id', 'integer'),
            col('plate', 'text'),
            col('vehicle_type', 'text'),
            col('purchase_price', 'numeric(10,2)'),
          ],
          ['vehicle_id'],
        ],
      ],
      { 'depot.vehicles': { vehicle_type: ['van', 'truck', 'e-bike'] } },
    );
    const p = await plan(depot, 'average purchase price of a van');
    expect(leaves(p.spec)).toEqual([{ op: 'eq', column: { column: 'vehicle_type' }, value: 'van' }]);
  });

  it('a word naming a flag of the rows asked about is that flag, not a value of another table', async () => {
    const p = await plan(crew, 'how many active drivers');
    expect(p.spec.joins).toEqual([]);
    expect(leaves(p.spec)).toEqual([{ op: 'eq', column: { column: 'is_active' }, value: true }]);
  });

  it('what is spent may be a cost', async () => {
    const p = await plan(crew, 'total repair spend in 2024');
    expect(p.spec.aggregates).toMatchObject([{ fn: 'sum', column: { column: 'cost' } }]);
  });

  it('`no longer` negates (and is refused with nothing to negate); `headcount` is a count', async () => {
    expect((await refusal(crew, 'drivers no longer with us')).message).toMatch(/'no'/);
    const p = await plan(staff, 'headcount in Leeds');
    expect(p.spec.aggregates).toMatchObject([{ fn: 'count' }]);
    expect(p.spec.columns).toEqual([]);
  });

  it('a word for an analysis a plan cannot say (`predict`, `together`) is never filler', async () => {
    expect((await refusal(staff, 'predict the number of Holiday absences')).message).toMatch(/predict/);
  });

  it('a word for the state of the rows (`late`) is refused when nothing in the schema explains it, whatever its part of speech', async () => {
    expect((await refusal(ci, 'how many builds finished late in October 2024')).message).toMatch(/late/);
  });

  it('an adjective that says which rows is refused when nothing in the schema explains it', async () => {
    expect((await refusal(staff, 'how many female Permanent staff')).message).toMatch(/female/);
    expect((await refusal(staff, 'how many staff are retired')).message).toMatch(/retired/);
    expect((await refusal(staff, 'how many staff members are older')).message).toMatch(/older/);
  });

  it('a top N with nothing to rank is refused', async () => {
    expect((await refusal(shop, 'top 4 by number of orders in 2024')).message).toMatch(/rank/);
  });

  it('two events counted by different dates are not merged into one count', async () => {
    expect((await refusal(staff, 'hires and leavers per quarter')).message).toMatch(/different dates/);
  });

  it('a state at a past date is refused: rows are counted by when they happened', async () => {
    await refusal(staff, 'headcount at the end of 2023');
    expect((await refusal(staff, 'absences as of June 2024')).message).toMatch(/past date/);
  });
});

describe('what the question asks for is what the plan answers, or it is refused', () => {
  it('`average`, `p90` and `how much` need that kind of measure, not a count or rows', async () => {
    expect((await refusal(staff, 'how long do holidays last on average?')).message).toMatch(/average/);
    expect((await refusal(events, 'what is the typical p90 refund')).message).toMatch(/p90/);
    expect((await refusal(events, 'how much did refunds come to?')).message).toMatch(/how much/);
  });

  it('`per` or `each` with one number for everything is refused', async () => {
    expect((await refusal(staff, 'absences per kind, other than jury duty')).message).toMatch(
      /break the answer down/,
    );
    expect(
      (await refusal(events, 'host breakdown of sessions, skipping those with no host')).message,
    ).toMatch(/break down/);
  });

  it('rows asked for are not answered with their count', async () => {
    expect((await refusal(staff, 'staff who had a sick absence in 2024')).message).toMatch(/rows themselves/);
  });

  it('the entity ranked or chosen is the one the answer shows', async () => {
    expect((await refusal(shop, 'top 3 customers by order count in each country')).message).toMatch(
      /'customers'/,
    );
    expect((await refusal(staff, 'top 2 staff by absences in each office')).message).toMatch(/'staff'/);
    // A table's name before one of its columns names the column, which is shown.
    const p = await plan(staff, 'absences per office city');
    expect(p.spec.group_by.map((g) => g.column.column)).toEqual(['city']);
  });

  it('a year said must bound the period read', async () => {
    expect((await refusal(staff, 'absence days of people hired in 2021, last 30 days')).message).toMatch(
      /2021/,
    );
    const p = await plan(staff, 'list staff hired before 2020 along with their contract');
    expect(leaves(p.spec)).toContainEqual({
      op: 'time_range',
      column: { column: 'hired_on' },
      range: { kind: 'absolute', to: '2020-01-01T00:00:00.000Z' },
    });
  });

  it('a filter on the number of related rows counts those rows, and the measure asked for is ranked', async () => {
    const p = await plan(staff, 'offices with more than 4 absences ranked by their average appraisal score');
    expect(p.spec.aggregates).toContainEqual({
      fn: 'count_distinct',
      column: { table: 'people.absences', column: 'absence_id' },
      alias: 'count_absences',
    });
    expect(p.spec.having).toEqual([{ ref: 'count_absences', op: 'gt', value: 4 }]);
    expect(p.spec.order_by).toEqual([{ ref: 'avg_score', direction: 'desc' }]);
  });

  it('a split nobody asked for is refused: every amount, every identifier counted, any split of a plain `how many`', async () => {
    expect((await refusal(events, 'how many purchases had a refund amount')).message).toMatch(
      /every value of refund.amount/,
    );
    expect((await refusal(events, 'sessions for each segment')).message).toMatch(/every session.id/);
    expect((await refusal(events, 'how many log lines carried a service name?')).message).toMatch(
      /split by values nobody asked for/,
    );
    // Said after `per`, an amount is a split like any other.
    const p = await plan(events, 'value of purchases (order total) per service and item count');
    expect(p.spec.group_by.map((g) => g.column.column)).toEqual(['service.name', 'order.item_count']);
  });

  it('every column of every row answers only a request for rows', async () => {
    expect((await refusal(staff, 'what did appraisals look like in 2024')).message).toMatch(
      /does not ask for rows/,
    );
    const p = await plan(events, 'list the refunds from last week');
    expect(p.spec.aggregates).toEqual([]);
  });

  it('a superlative with nothing ranked is refused, and the most common thing is what the answer shows', async () => {
    expect((await refusal(staff, 'newest staff per office')).message).toMatch(/'newest' ranks/);
    expect((await refusal(events, 'the best segment by order total')).message).toMatch(/'best' ranks/);
    const ranked = await plan(events, 'segments ranked by order total, best first');
    expect(ranked.spec.order_by).toEqual([{ ref: 'sum_total', direction: 'desc' }]);
  });

  it('money spent or collected is what was paid, by the date it was paid; billed is what was issued', async () => {
    const billing = billingSchema();
    const spent = await plan(billing, 'how much did Harbor Labs spend with us in 2024?');
    expect(leaves(spent.spec)).toContainEqual({
      op: 'eq',
      column: { table: 'billing.invoices', column: 'status' },
      value: 'paid',
    });
    expect(leaves(spent.spec)).toContainEqual(
      expect.objectContaining({ op: 'time_range', column: { table: 'billing.invoices', column: 'paid_on' } }),
    );
    const billed = await plan(billing, 'total amount billed in 2024');
    expect(leaves(billed.spec).some((l) => 'column' in l && l.column.column === 'status')).toBe(false);
  });

  it('leave taken is the approved requests; leave requested is every request', async () => {
    const leave = leaveSchema();
    const took = await plan(leave, 'top 3 people by sick days taken in 2024');
    expect(leaves(took.spec)).toContainEqual({
      op: 'eq',
      column: { table: 'hrm.leave_requests', column: 'status' },
      value: 'Approved',
    });
    const requested = await plan(leave, 'total sick days requested in 2024');
    expect(leaves(requested.spec).some((l) => 'column' in l && l.column.column === 'status')).toBe(false);
  });

  it('an event noun counts by the date that records it, not a creation date reached by a synonym', async () => {
    const p = await plan(billingSchema(), 'quarterly signups');
    expect(p.spec.source).toBe('billing.clients');
    expect(p.spec.group_by).toEqual([
      expect.objectContaining({ column: { column: 'signed_up_on' }, time_bucket: 'quarter' }),
    ]);
  });

  it('a capitalised name nothing explains is never filler, and its first word is not a value that goes on otherwise', async () => {
    await refusal(billingSchema(), 'how many invoices did Harbor Contacts get');
    const p = await plan(billingSchema(), 'how many invoices did Harbor get');
    expect(leaves(p.spec)).toContainEqual(expect.objectContaining({ op: 'eq', value: 'Harbor Labs' }));
  });

  it('a share of an entity known by its identifier is a share of distinct identifiers', async () => {
    const p = await plan(events, 'what percentage of sessions come from the returning segment');
    expect(p.spec.aggregates).toEqual([
      expect.objectContaining({
        fn: 'count_distinct',
        column: { column: 'session.id' },
        share: true,
        where: { op: 'eq', column: { column: 'user.segment' }, value: 'returning' },
      }),
    ]);
  });

  it('a follow-up that only regroups keeps the measure of the previous answer', async () => {
    const first = await plan(events, 'how many sessions were there in each month');
    const next = await plan(
      events,
      'break that down by segment',
      [first],
      ['how many sessions were there in each month'],
    );
    expect(next.spec.aggregates).toEqual(first.spec.aggregates);
    expect(next.spec.group_by.map((g) => g.alias)).toEqual(['month', 'segment']);
  });

  it('a follow-up period moves the previous period, on the same date', async () => {
    const first = await plan(staff, 'top 2 staff by absence days in 2023');
    const range = leaves(first.spec).find((c) => c.op === 'time_range');
    expect(range).toMatchObject({ column: { table: 'people.absences' } });
    const next = await plan(staff, 'and for 2024?', [first], ['top 2 staff by absence days in 2023']);
    const moved = leaves(next.spec).find((c) => c.op === 'time_range');
    expect(moved && 'column' in moved ? moved.column : null).toEqual(
      range && 'column' in range ? range.column : undefined,
    );
    expect(moved).toMatchObject({ range: { kind: 'absolute', from: '2024-01-01T00:00:00.000Z' } });
  });

  it("`of those` keeps the previous answer's rows and narrows them; with no previous answer it is refused", async () => {
    const first = await plan(staff, 'how many staff are in Leeds');
    const next = await plan(
      staff,
      'how many of those are Permanent?',
      [first],
      ['how many staff are in Leeds'],
    );
    expect(leaves(next.spec)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ value: 'Leeds' }),
        expect.objectContaining({ value: 'Permanent' }),
      ]),
    );
    expect((await refusal(staff, 'how many of those are Permanent?')).message).toMatch(/follow-up/);
    expect((await refusal(staff, 'ok, only count the Permanent ones')).message).toMatch(/follow-up/);
    expect((await refusal(staff, 'which ones? name and office please')).message).toMatch(/follow-up/);
    const named = await plan(staff, 'how many staff are there, not counting the Permanent ones?');
    expect(leaves(named.spec)).toEqual([{ op: 'neq', column: { column: 'contract' }, value: 'Permanent' }]);
  });

  it('a month said alone in a follow-up is the whole month; `may` alone stays a word', async () => {
    const first = await plan(staff, 'how many sick absences in September 2024');
    const next = await plan(staff, 'and october?', [first], ['how many sick absences in September 2024']);
    expect(leaves(next.spec).find((c) => c.op === 'time_range')).toMatchObject({
      range: { from: '2024-10-01T00:00:00.000Z', to: '2024-11-01T00:00:00.000Z' },
    });
    const polite = await plan(staff, 'may I see the number of absences');
    expect(leaves(polite.spec).find((c) => c.op === 'time_range')).toBeUndefined();
  });
});

describe('fields with several values in a document', () => {
  const tagged = (): PlannerSchema => ({
    ...events,
    tables: events.tables.map((t) => ({
      ...t,
      columns: t.columns.map((c) => (c.name === 'user.segment' ? { ...c, multi_valued: true } : c)),
    })),
  });

  it('one top-level equality on them is planned (the compiler expands them); any other comparison is refused', async () => {
    const schema = tagged();
    const p = await plan(schema, 'how many sessions were in the returning segment');
    expect(leaves(p.spec)).toContainEqual({
      op: 'eq',
      column: { column: 'user.segment' },
      value: 'returning',
    });
    const error = await refusal(schema, 'how many page views were not in the new segment');
    expect(error.message).toMatch(/'user.segment' holds several values/);
    const either = {
      ...p.spec,
      filter: {
        op: 'or' as const,
        conditions: [
          { op: 'eq' as const, column: { column: 'user.segment' }, value: 'new' },
          { op: 'eq' as const, column: { column: 'host.name' }, value: 'web-1' },
        ],
      },
    };
    expect(validateSpecAgainstSchema(either, schema).join(' ')).toMatch(/several values/);
    expect(validateSpecAgainstSchema(either, events)).toEqual([]);
  });
});

describe('periods apply to the rows measured', () => {
  it('the people with the most absences in a year: the absences of that year, not the people hired in it', async () => {
    const p = await plan(staff, 'the 3 staff who had the most absences in 2023');
    const period = leaves(p.spec).find((c) => c.op === 'time_range');
    expect(period).toMatchObject({ column: { table: 'people.absences' } });
    expect(p.spec.group_by[0]).toMatchObject({ column: { table: 'people.staff', column: 'full_name' } });
  });

  it('a verb of making a row names its creation date', async () => {
    const p = await plan(staff, 'how many absences were filed in March 2024');
    expect(leaves(p.spec).find((c) => c.op === 'time_range')).toMatchObject({
      column: { column: 'logged_at' },
    });
  });

  it('a sampled value that reads like a period is the value (a review cycle), not a half-year', async () => {
    const p = await plan(staff, 'average appraisal score in the 2024 H1 cycle');
    expect(leaves(p.spec)).toEqual([{ op: 'eq', column: { column: 'cycle' }, value: '2024 H1' }]);
  });
});

describe('answer shapes', () => {
  it('people named with filters are listed by name; other rows are counted', async () => {
    const p = await plan(staff, 'part-time staff in Bristol');
    expect(p.spec.aggregates).toEqual([]);
    expect(p.spec.columns).toEqual([{ table: 'people.staff', column: 'full_name' }]);
  });

  it('`who ...` lists the people the rows belong to, each once', async () => {
    const p = await plan(staff, 'who took jury duty in 2024?');
    expect(p.spec.group_by.map((g) => g.column)).toEqual([{ table: 'people.staff', column: 'full_name' }]);
    expect(p.spec.aggregates).toEqual([]);
  });

  it('`which <rows> ...` with a comparison lists the rows by label beside the column compared', async () => {
    const p = await plan(shop, 'which products are pricier than €80?');
    expect(p.spec.columns[0]).toMatchObject({ column: 'product_name' });
    expect(leaves(p.spec)).toContainEqual({ op: 'gt', column: { column: 'price' }, value: 80 });
  });

  it('`headcount` counts the people employed now', async () => {
    const p = await plan(staff, 'headcount per office');
    expect(leaves(p.spec)).toContainEqual({
      op: 'is_null',
      column: { table: 'people.staff', column: 'left_on' },
    });
  });
});

describe('what a count counts', () => {
  it("a word that names the rows a column describes counts the rows, not the column's values", async () => {
    const rows = await plan(surgery, 'how many visits in 2024');
    expect(rows.spec.aggregates).toEqual([{ fn: 'count', alias: 'count' }]);
    const types = await plan(surgery, 'how many visit types are there');
    expect(types.spec.aggregates).toMatchObject([{ fn: 'count_distinct', column: { column: 'visit_type' } }]);
  });

  it('a total of a price per unit with no quantity to multiply it by is refused, never summed', async () => {
    const listings = postgresSource(
      'market',
      [
        [
          'listings',
          [col('listing_id', 'integer'), col('seller', 'text'), col('unit_price', 'numeric(8,2)')],
          ['listing_id'],
        ],
      ],
      { 'market.listings': { seller: ['Acme', 'Globex'] } },
    );
    expect((await refusal(listings, 'revenue by seller')).message).toMatch(/price per unit/);
  });

  it('within each group said, the entity ranked is grouped too (`top 2 staff ... in each office`)', async () => {
    const p = await plan(staff, 'top 2 staff by absence days in each office');
    expect(p.spec.limit_per_group).toMatchObject({ n: 2, partition_by: expect.arrayContaining(['city']) });
    expect(p.spec.group_by.map((g) => g.column.column)).toEqual(
      expect.arrayContaining(['city', 'full_name']),
    );
    expect(p.spec.aggregates[0]).toMatchObject({ fn: 'sum', column: { column: 'days' } });
  });

  it('a count column is summed by default, whatever words its name hides (`packages` holds `age`)', async () => {
    const p = await plan(ci, 'packages published per branch');
    expect(p.spec.aggregates).toMatchObject([{ fn: 'sum', column: { column: 'packages_published' } }]);
  });

  it("`how many hours` is the total of the rows' duration in hours, not a count", async () => {
    const p = await plan(ci, 'how many hours did release builds take in 2024');
    expect(p.spec.aggregates).toMatchObject([
      { fn: 'sum', expression: { op: 'scale', column: { column: 'duration_ms' }, factor: 1 / 3_600_000 } },
    ]);
    expect(leaves(p.spec)).toContainEqual({ op: 'eq', column: { column: 'branch' }, value: 'release' });
  });

  it('`including those with no X` keeps the empty ones beside the others rather than picking them out', async () => {
    const p = await plan(staff, 'how many staff per contract, including people with no contract on file');
    expect(p.spec.filter).toBeNull();
    expect(p.spec.group_by.map((g) => g.column.column)).toEqual(['contract']);
  });

  it('a total of the rows a value names, with no amount said, is their number', async () => {
    const p = await plan(staff, 'Holiday total for 2024');
    expect(p.spec.aggregates).toEqual([{ fn: 'count', alias: 'count' }]);
  });

  it("a generic word after a column's name (`trigger type`) is that column, not another one called `type`", async () => {
    const p = await plan(ci, 'builds per trigger type');
    expect(p.spec.group_by.map((g) => g.column.column)).toEqual(['trigger']);
  });

  it("a participle of a column's verb before the rows (`rated appointments`) keeps the rows where it is filled in", async () => {
    const p = await plan(surgery, 'how many rated appointments in 2024');
    expect(leaves(p.spec)).toContainEqual({ op: 'is_not_null', column: { column: 'rating' } });
  });

  it('`only count` restricts what is ranked; it asks for no count of its own', async () => {
    const p = await plan(
      staff,
      'which 2 offices have the most absence days? only count offices with at least 10 absences',
    );
    expect(p.spec.aggregates.filter((a) => a.fn === 'count' || a.fn === 'count_distinct')).toHaveLength(1);
    expect(p.spec.order_by[0]?.ref).toBe(p.spec.aggregates.find((a) => a.fn === 'sum')?.alias);
  });

  it('`how many` before a number column is refused rather than counting its distinct numbers', async () => {
    await refusal(surgery, 'how many refunded?');
  });
});

describe('existence and filters on counts', () => {
  it('`never` with a value of related rows: no such row at all, not a row of another kind', async () => {
    const p = await plan(staff, 'how many staff have never been off sick');
    expect(leaves(p.spec)).toContainEqual({
      op: 'not_exists',
      table: 'people.absences',
      on: [{ left: { column: 'staff_id' }, right: { table: 'people.absences', column: 'staff_id' } }],
      filter: { op: 'eq', column: { table: 'people.absences', column: 'kind' }, value: 'Sick' },
    });
    expect(p.spec.joins).toEqual([]);
  });

  it('`never` with a value of the rows listed by one of their columns is none of them per value listed, not the other rows', async () => {
    const p = await plan(ci, 'which branches have never had a cancelled build?');
    expect(p.spec.group_by).toEqual([{ column: { column: 'branch' }, alias: 'branch' }]);
    expect(p.spec.aggregates).toEqual([
      {
        fn: 'count',
        alias: 'matching',
        where: { op: 'eq', column: { column: 'status' }, value: 'cancelled' },
        hidden: true,
      },
    ]);
    expect(p.spec.having).toEqual([{ ref: 'matching', op: 'eq', value: 0 }]);
    expect(leaves(p.spec).some((c) => c.op === 'neq')).toBe(false);
  });

  it('a number followed by rows counts them per entity, even after a column word', async () => {
    const p = await plan(events, 'services that logged over 30 warnings');
    expect(p.spec.group_by.map((g) => g.column.column)).toEqual(['service.name']);
    expect(p.spec.having).toEqual([{ ref: 'count', op: 'gt', value: 30 }]);
  });

  it('a number followed by a plural value counts the rows that value names, not the entity', async () => {
    for (const question of [
      'which staff have had more than 4 holidays',
      'offices with more than 20 holidays',
    ]) {
      const p = await plan(staff, question);
      const counted = p.spec.aggregates.find((a) => a.alias === p.spec.having[0]?.ref);
      expect(counted?.column ?? { table: p.spec.source }, question).toMatchObject({
        table: 'people.absences',
      });
    }
  });

  it("a count per the counted table's own key (1 in every group) is refused", async () => {
    expect((await refusal(ci, 'number of builds per build id')).message).toMatch(/counts once/);
  });

  it('a count ranked per the entity it is grouped by counts the rows joined on the many side', async () => {
    const p = await plan(staff, 'for each contract, the office with the highest number of holidays');
    expect(p.spec.limit_per_group).toEqual({ n: 1, partition_by: ['contract'] });
    const counted = p.spec.aggregates.find((a) => a.alias === p.spec.order_by[0]?.ref);
    expect(counted?.column ?? { table: p.spec.source }).toMatchObject({ table: 'people.absences' });
  });

  it('a comparison said `in total` is of the sum per entity, never of each row (or it is refused)', async () => {
    for (const question of [
      'clients invoiced more than 5,000 in total',
      'clients with an invoice amount over 5,000 in total',
    ]) {
      const outcome = await offlinePlanner
        .plan({ question, schema: billing, history: [], chartRequested: false, now })
        .catch((e: unknown) => e);
      if (outcome instanceof PlanningError) continue;
      const p = outcome as Plan;
      expect(
        leaves(p.spec).filter((c) => c.op === 'gt'),
        question,
      ).toEqual([]);
      expect(p.spec.having, question).toMatchObject([{ op: 'gt', value: 5000 }]);
    }
  });

  it('`seen more than N times` counts per value of the column named', async () => {
    const p = await plan(events, 'hosts seen more than 12 times');
    expect(p.spec.group_by.map((g) => g.column.column)).toEqual(['host.name']);
    expect(p.spec.having).toEqual([{ ref: 'count', op: 'gt', value: 12 }]);
    expect(leaves(p.spec)).toContainEqual({ op: 'is_not_null', column: { column: 'host.name' } });
  });

  it('a unit on a filtered average converts to the stored unit', async () => {
    const p = await plan(events, 'hosts whose average duration is above 250 ms');
    expect(p.spec.having).toEqual([{ ref: 'avg_duration', op: 'gt', value: 250_000_000 }]);
  });

  it('`at least one` is not a superlative', async () => {
    const p = await plan(events, 'which hosts had at least one fatal last week?');
    expect(p.spec.limit).toBeNull();
  });

  it('a number in words compares like its digits', async () => {
    const p = await plan(shop, 'customers with more than two orders');
    expect(p.spec.having).toEqual([{ ref: 'count', op: 'gt', value: 2 }]);
  });
});

describe('event indices', () => {
  it('`errors` in a log level column are the lines at error or worse; other levels mean themselves', async () => {
    expect(leaves((await plan(events, 'errors per service')).spec)).toContainEqual({
      op: 'in',
      column: { column: 'log.level' },
      values: ['error', 'fatal'],
    });
    expect(leaves((await plan(events, 'warnings per service')).spec)).toContainEqual({
      op: 'eq',
      column: { column: 'log.level' },
      value: 'warn',
    });
  });

  it("`which <field>` with rows known by their identifier lists the field's values once each", async () => {
    const p = await plan(events, 'which hosts served a purchase session?');
    expect(p.spec.columns).toEqual([]);
    expect(p.spec.group_by.map((g) => g.column.column)).toEqual(['host.name']);
  });

  it("a count is never grouped by the documents' own identifier (1 each)", async () => {
    const runs = fromIntrospection(
      {
        dialect: 'elasticsearch',
        schemas: [{ name: 'ci-runs-*', table_count: 1 }],
        warnings: [],
        server_version: '8.15.0',
        tables: [
          {
            name: 'ci-runs-*',
            schema: null,
            kind: 'index',
            columns: [
              col('@timestamp', 'date'),
              col('run.id', 'keyword'),
              col('labels', 'keyword'),
              col('status', 'keyword'),
            ],
            primary_key: [],
            foreign_keys: [],
            row_estimate: 500,
            members: [],
            warnings: [],
          },
        ],
      },
      capabilitiesOf('elasticsearch'),
      {
        samples: { 'ci-runs-*': { status: ['success', 'failure', 'cancelled'], labels: ['docs', 'flaky'] } },
      },
    );
    const p = await plan(runs, 'top 2 labels of cancelled runs');
    expect(p.spec.group_by.map((g) => g.column.column)).toEqual(['labels']);
    expect(p.spec.aggregates).toMatchObject([{ fn: 'count' }]);
  });

  it('rows listed with `when` show their time', async () => {
    const p = await plan(events, 'list fatal log lines with the service and host, and when they happened');
    expect(p.spec.columns.map((c) => c.column)).toEqual(['@timestamp', 'service.name', 'host.name']);
  });

  it('latency is what requests take', async () => {
    const p = await plan(events, 'median latency for the search service');
    expect(leaves(p.spec)).toContainEqual({ op: 'is_not_null', column: { column: 'http.request.method' } });
  });

  it('an everyday word is not an upper-case code', async () => {
    const p = await plan(events, 'can I get the daily event count');
    expect(leaves(p.spec).some((c) => 'column' in c && c.column.column === 'http.request.method')).toBe(
      false,
    );
  });

  it('a namespace and a leaf name a nested field (`http method`)', async () => {
    const p = await plan(events, 'events per http method');
    expect(p.spec.group_by.map((g) => g.column.column)).toEqual(['http.request.method']);
  });

  it('revenue is money coming in, never a refund', async () => {
    const p = await plan(events, 'total revenue last month');
    expect(p.spec.aggregates).toMatchObject([{ fn: 'sum', column: { column: 'order.total' } }]);
  });

  it('an entity known only by its identifier is counted as distinct identifiers', async () => {
    const p = await plan(events, 'sessions per service');
    expect(p.spec.aggregates).toMatchObject([{ fn: 'count_distinct', column: { column: 'session.id' } }]);
    expect(p.spec.group_by.map((g) => g.column.column)).toEqual(['service.name']);
  });

  it('a negation covers every value of its list', async () => {
    const p = await plan(events, 'how many events other than purchases or refunds');
    expect(leaves(p.spec)).toContainEqual({
      op: 'not_in',
      column: { column: 'event.action' },
      values: ['purchase', 'refund'],
    });
  });

  it('the creation date of a nested object is not the creation date of the row', async () => {
    const p = await plan(events, 'how many errors were logged in the last 2 days');
    expect(leaves(p.spec).find((c) => c.op === 'time_range')).toMatchObject({
      column: { column: '@timestamp' },
    });
  });

  it('a verb is not read as a value by its stem (`returned` is not `returning`)', async () => {
    const p = await plan(events, 'how many searches returned an error yesterday');
    expect(leaves(p.spec).some((c) => 'column' in c && c.column.column === 'user.segment')).toBe(false);
  });

  it('grouping by two fields named `name` keeps both, and a follow-up adds to the grouping', async () => {
    const first = await plan(events, 'errors per service');
    const next = await plan(events, 'split that by host as well', [first], ['errors per service']);
    expect(next.spec.group_by.map((g) => [g.column.column, g.alias])).toEqual([
      ['service.name', 'service_name'],
      ['host.name', 'host_name'],
    ]);
  });

  it('a hyphenated plural and the head word of a machine value name it', async () => {
    expect(leaves((await plan(events, 'add-to-carts per service')).spec)).toContainEqual({
      op: 'eq',
      column: { column: 'event.action' },
      value: 'add_to_cart',
    });
    expect(leaves((await plan(events, 'views per host last week')).spec)).toContainEqual({
      op: 'eq',
      column: { column: 'event.action' },
      value: 'page_view',
    });
  });

  it('a plural value said as a noun names the rows, which are counted', async () => {
    const p = await plan(events, 'purchases in the last 3 days');
    expect(p.spec.aggregates).toMatchObject([{ fn: 'count' }]);
  });

  it('an average per the unit it is measured on is one average, not one per unit', async () => {
    const p = await plan(events, 'average item count per order');
    expect(p.spec.group_by).toEqual([]);
    expect(p.spec.aggregates).toMatchObject([{ fn: 'avg', column: { column: 'order.item_count' } }]);
    expect((await refusal(events, 'mean revenue for each session')).message).toMatch(
      /total divided by their number/,
    );
  });

  it('an entity known by its identifier is counted distinct in a filter on a count', async () => {
    const p = await plan(events, 'hosts with at least 50 sessions');
    expect(p.spec.group_by.map((g) => g.column.column)).toEqual(['host.name']);
    expect(p.spec.having).toEqual([{ ref: 'distinct_session_id', op: 'gte', value: 50 }]);
    expect(p.spec.aggregates).toContainEqual({
      fn: 'count_distinct',
      column: { column: 'session.id' },
      alias: 'distinct_session_id',
    });
  });

  it('a comparison with no column said takes the amount of the thing a value names', async () => {
    const p = await plan(events, 'refunds for more than $40');
    expect(leaves(p.spec)).toContainEqual({ op: 'gt', column: { column: 'refund.amount' }, value: 40 });
  });

  it('`nothing` and arithmetic between measures are refused rather than dropped', async () => {
    expect((await refusal(events, 'how many searches came back with nothing')).message).toMatch(/nothing/);
    expect((await refusal(events, 'total revenue minus refunds')).message).toMatch(/minus/);
  });

  it('a series split by a category is ordered by period, then category', async () => {
    const p = await plan(events, 'monthly events by service');
    expect(p.spec.order_by).toEqual([
      { ref: 'month', direction: 'asc' },
      { ref: 'service_name', direction: 'asc' },
    ]);
  });
});

describe('the date a row happens on', () => {
  const rangeColumns = (spec: QuerySpec) =>
    leaves(spec).flatMap((c) => (c.op === 'time_range' ? [c.column.column] : []));

  it('a scheduled row is dated by when it takes place, not when it was booked', async () => {
    const p = await plan(surgery, 'how many appointments in March 2024');
    expect(rangeColumns(p.spec)).toEqual(['scheduled_start']);
  });

  it('two consecutive years said together are one span, and `by <table> date` names the date a period bucket uses', async () => {
    const p = await plan(surgery, 'total bill amount per quarter across 2023 and 2024, by bill date');
    expect(p.spec.group_by).toEqual([
      { column: { column: 'issued_on' }, time_bucket: 'quarter', alias: 'quarter' },
    ]);
    expect(leaves(p.spec)).toEqual([
      {
        op: 'time_range',
        column: { column: 'issued_on' },
        range: { kind: 'absolute', from: '2023-01-01T00:00:00.000Z', to: '2025-01-01T00:00:00.000Z' },
      },
    ]);
  });

  it('`new <table>` in a period is the rows that table gained, even where another table has a value of that phrase', async () => {
    const practice = postgresSource(
      'practice',
      [
        [
          'patients',
          [col('patient_id', 'integer'), col('full_name', 'text'), col('registered_on', 'date')],
          ['patient_id'],
        ],
        [
          'visits',
          [
            col('visit_id', 'integer'),
            col('patient_id', 'integer'),
            col('visit_type', 'text'),
            col('visit_date', 'date'),
          ],
          ['visit_id'],
          [['patient_id', 'patients', 'patient_id']],
        ],
      ],
      { 'practice.visits': { visit_type: ['new patient', 'follow-up'] } },
    );
    const p = await plan(practice, 'how many new patients did we get in 2024');
    expect(p.spec.source).toBe('practice.patients');
    expect(leaves(p.spec)).toEqual([
      expect.objectContaining({ op: 'time_range', column: { column: 'registered_on' } }),
    ]);
  });

  it('a row is dated by when it was issued, not by a later step of its life', async () => {
    const p = await plan(surgery, 'total bill amount in Q1 2024');
    expect(rangeColumns(p.spec)).toEqual(['issued_on']);
  });
});

describe('events said as verbs', () => {
  it('`have left` among people hired in a period: the period stays on the hiring date', async () => {
    const p = await plan(staff, 'of the staff we hired in 2023, how many have left?');
    expect(leaves(p.spec)).toContainEqual({ op: 'is_not_null', column: { column: 'left_on' } });
    expect(leaves(p.spec).find((c) => c.op === 'time_range')).toMatchObject({
      column: { column: 'hired_on' },
    });
  });
});
