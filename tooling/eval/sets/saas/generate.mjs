// Deterministic generator for the "saas" evaluation set.
// Usage: node generate.mjs   (writes schema.sql next to this file)
// Plain Node ESM, no dependencies, seeded PRNG, no wall-clock time.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OUT = join(dirname(fileURLToPath(import.meta.url)), 'schema.sql');

// ---------- PRNG ----------
function mulberry32(seed) {
  let a = seed >>> 0;
  return function () {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = mulberry32(20250615);
const randInt = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const pick = (arr) => arr[Math.floor(rand() * arr.length)];
function weighted(pairs) {
  const total = pairs.reduce((s, [, w]) => s + w, 0);
  let r = rand() * total;
  for (const [v, w] of pairs) {
    if ((r -= w) < 0) return v;
  }
  return pairs[pairs.length - 1][0];
}
function shuffle(arr) {
  for (let i = arr.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [arr[i], arr[j]] = [arr[j], arr[i]];
  }
  return arr;
}
function lognormal(mu, sigma) {
  const u1 = Math.max(rand(), 1e-9);
  const u2 = rand();
  const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  return Math.exp(mu + sigma * z);
}

// ---------- time helpers (all UTC, ms) ----------
const DAY = 86400000;
const NOW = Date.UTC(2025, 5, 15, 12, 0, 0); // 2025-06-15T12:00:00Z (set.json "now")
const TODAY = Date.UTC(2025, 5, 15);
const START = Date.UTC(2023, 5, 1); // about two years before now
const d = (y, m, day) => Date.UTC(y, m - 1, day);
const fmtDate = (ms) => new Date(ms).toISOString().slice(0, 10);
const fmtTs = (ms) => new Date(ms).toISOString().replace('.000Z', 'Z');
const floorDay = (ms) => Math.floor(ms / DAY) * DAY;
function addMonths(ms, n) {
  const dt = new Date(ms);
  const y = dt.getUTCFullYear();
  const m = dt.getUTCMonth() + n;
  const day = dt.getUTCDate();
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return Date.UTC(y, m, Math.min(day, last));
}

// ---------- reference data ----------
const PLANS = [
  { id: 1, name: 'Starter', tier: 'self-serve', price: 15.0, launched: d(2021, 1, 1), retired: null },
  { id: 2, name: 'Team', tier: 'self-serve', price: 35.0, launched: d(2021, 1, 1), retired: null },
  { id: 3, name: 'Business', tier: 'sales-led', price: 69.0, launched: d(2021, 1, 1), retired: null },
  { id: 4, name: 'Enterprise', tier: 'sales-led', price: 129.0, launched: d(2021, 1, 1), retired: null },
  { id: 5, name: 'Legacy Pro', tier: 'self-serve', price: 49.0, launched: d(2019, 3, 1), retired: d(2024, 1, 1) },
  { id: 6, name: 'Nonprofit Team', tier: 'self-serve', price: 17.5, launched: d(2022, 6, 1), retired: null },
  { id: 7, name: 'Enterprise Plus', tier: 'sales-led', price: 199.0, launched: d(2025, 6, 1), retired: null },
];
const PLAN = Object.fromEntries(PLANS.map((p) => [p.name, p]));

const INDUSTRIES = [
  ['Software', 22], ['Financial Services', 14], ['Healthcare', 11], ['Retail & E-commerce', 10],
  ['Manufacturing', 8], ['Education', 7], ['Professional Services', 9], ['Media & Entertainment', 6],
  ['Logistics', 5], ['Non-Profit', 4], ['Real Estate', 4],
];
const COUNTRIES = [
  ['United States', 38], ['United Kingdom', 13], ['Germany', 10], ['Canada', 8], ['France', 6],
  ['Australia', 6], ['Netherlands', 5], ['India', 4], ['Brazil', 3], ['Japan', 3], ['Spain', 2],
  ['Sweden', 2], ['South Africa', 1], ['New Zealand', 1],
];
const REPS = [
  ['Maria Gonzalez', 18], ['James Whitaker', 16], ['Priya Raman', 14], ['Tom Becker', 11],
  ['Aisha Okafor', 10], ['Daniel Kim', 8], ['Sophie Laurent', 6], ['Lucas Moreau', 3],
];

const NAME_A = ['Acme', 'Apex', 'Aurora', 'Beacon', 'Bluefin', 'Brightwave', 'Cascade', 'Cedar', 'Cobalt',
  'Copperline', 'Crescent', 'Driftwood', 'Evergreen', 'Falcon', 'Fernhill', 'Granite', 'Harbor', 'Helix',
  'Horizon', 'Ironclad', 'Juniper', 'Keystone', 'Lakeside', 'Lumen', 'Maple', 'Meridian', 'Nimbus',
  'Northwind', 'Oakridge', 'Orbit', 'Pinnacle', 'Polaris', 'Quartz', 'Redwood', 'Riverbend', 'Sable',
  'Silverline', 'Summit', 'Tidewater', 'Trident', 'Vantage', 'Verdant', 'Willow', 'Zephyr'];
const NAME_B = {
  'Software': ['Labs', 'Software', 'Systems', 'Technologies', 'Cloud', 'Digital'],
  'Financial Services': ['Capital', 'Financial', 'Partners', 'Bank', 'Wealth', 'Insurance'],
  'Healthcare': ['Health', 'Medical', 'Clinics', 'Biotech', 'Care', 'Diagnostics'],
  'Retail & E-commerce': ['Outfitters', 'Market', 'Goods', 'Supply Co.', 'Stores', 'Brands'],
  'Manufacturing': ['Industries', 'Manufacturing', 'Works', 'Fabrication', 'Components', 'Tooling'],
  'Education': ['Academy', 'Learning', 'University', 'Schools', 'Education', 'Institute'],
  'Professional Services': ['Consulting', 'Advisors', 'Group', 'Legal', 'Associates', 'Partners'],
  'Media & Entertainment': ['Media', 'Studios', 'Entertainment', 'Publishing', 'Productions', 'Records'],
  'Logistics': ['Logistics', 'Freight', 'Shipping', 'Transport', 'Couriers', 'Cargo'],
  'Non-Profit': ['Foundation', 'Trust', 'Alliance', 'Society', 'Fund', 'Initiative'],
  'Real Estate': ['Realty', 'Properties', 'Estates', 'Homes', 'Developments', 'Land'],
  null: ['Group', 'Co.', 'Ventures', 'Holdings', 'Partners', 'Inc.'],
};
const FIRST = ['Emma', 'Liam', 'Olivia', 'Noah', 'Ava', 'Ethan', 'Mia', 'Lucas', 'Sofia', 'Mason', 'Isabella',
  'Logan', 'Amelia', 'James', 'Harper', 'Benjamin', 'Chloe', 'Elijah', 'Grace', 'Henry', 'Hannah', 'Jack',
  'Zoe', 'Samuel', 'Nora', 'David', 'Leah', 'Owen', 'Ruby', 'Arjun', 'Ananya', 'Kenji', 'Yuki', 'Mateo',
  'Lena', 'Felix', 'Clara', 'Omar', 'Fatima', 'Hugo', 'Ines', 'Nils', 'Freya', 'Thabo', 'Aroha', 'Carlos',
  'Beatriz', 'Wei', 'Mei', 'Kofi'];
const LAST = ['Smith', 'Johnson', 'Brown', 'Taylor', 'Wilson', 'Martin', 'Anderson', 'Clark', 'Lewis', 'Walker',
  'Hall', 'Young', 'King', 'Wright', 'Lopez', 'Hill', 'Green', 'Adams', 'Baker', 'Nelson', 'Carter', 'Mitchell',
  'Patel', 'Sharma', 'Nakamura', 'Tanaka', 'Muller', 'Schmidt', 'Dubois', 'Bernard', 'Silva', 'Santos',
  'Jansen', 'de Vries', 'Lindqvist', 'Nkosi', 'Chen', 'Wang', 'Garcia', 'Rossi', 'Novak', 'Murphy', 'Kelly',
  'OBrien', 'Fischer', 'Weber', 'Costa', 'Singh', 'Ito', 'Park'];

// ---------- accounts ----------
const N_ACCOUNTS = 200;
const accounts = [];
const usedNames = new Set();
for (let i = 1; i <= N_ACCOUNTS; i++) {
  const industry = rand() < 0.05 ? null : weighted(INDUSTRIES);
  let name;
  do {
    name = `${pick(NAME_A)} ${pick(NAME_B[industry])}`;
  } while (usedNames.has(name));
  usedNames.add(name);
  // growth: later signups more frequent
  const span = (d(2025, 6, 12) - START) / DAY;
  const signup = START + Math.floor(Math.pow(rand(), 0.7) * span) * DAY;
  const country = weighted(COUNTRIES);
  const employees = rand() < 0.1 ? null : Math.max(2, Math.round(lognormal(4.2, 1.3)));
  accounts.push({ id: i, name, industry, country, signup, employees, rep: null, discount: 0 });
}
// sort ids by signup date so account_id roughly follows signup order
accounts.sort((a, b) => a.signup - b.signup || a.name.localeCompare(b.name));
accounts.forEach((a, i) => (a.id = i + 1));

// ---------- subscriptions ----------
const subscriptions = [];
let subId = 0;
const REASONS = [['Too expensive', 30], ['Switched to competitor', 22], ['Missing features', 18],
  ['Company shut down', 7], ['No longer needed', 15], [null, 8]];
const seatsFor = (plan) => {
  switch (plan) {
    case 'Starter': return randInt(1, 5);
    case 'Nonprofit Team': return randInt(3, 25);
    case 'Team': return randInt(5, 30);
    case 'Legacy Pro': return randInt(3, 40);
    case 'Business': return Math.round(randInt(15, 60) * (rand() < 0.2 ? 2 : 1));
    case 'Enterprise': return randInt(4, 40) * 10;
    default: return 1;
  }
};
const UPGRADE = { 'Starter': 'Team', 'Team': 'Business', 'Business': 'Enterprise', 'Legacy Pro': 'Business', 'Nonprofit Team': 'Team' };

const noSubIdx = new Set();
// a handful of accounts that signed up but never subscribed
for (const a of accounts) {
  if (TODAY - a.signup > 20 * DAY && rand() < 0.045) noSubIdx.add(a.id);
}

for (const a of accounts) {
  const bigCo = a.employees != null && a.employees > 250;
  a.rep = rand() < (bigCo ? 0.02 : 0.2) ? null : weighted(REPS);
  a.discount = weighted([[0, 75], [0.1, 15], [0.2, 7], [0.25, 3]]);
  if (noSubIdx.has(a.id)) continue;
  let start = a.signup + randInt(0, 12) * DAY;
  if (start >= TODAY) start = a.signup;
  let plan;
  if (a.industry === 'Non-Profit' && rand() < 0.7) plan = 'Nonprofit Team';
  else if (bigCo && rand() < 0.5) plan = weighted([['Business', 55], ['Enterprise', 45]]);
  else plan = weighted([['Starter', 38], ['Team', 32], ['Business', 18], ['Enterprise', 5],
    ['Legacy Pro', start < PLAN['Legacy Pro'].retired ? 30 : 0]]);
  if (plan === 'Legacy Pro' && start >= PLAN['Legacy Pro'].retired) plan = 'Team';
  let seats = seatsFor(plan);
  // walk the life of the account month by month
  for (let guard = 0; guard < 5; guard++) {
    const sub = { id: ++subId, account: a.id, plan, seats, start, end: null, status: 'active', reason: null };
    subscriptions.push(sub);
    if (TODAY - start < 14 * DAY) { sub.status = 'trialing'; break; }
    let t = addMonths(start, 1);
    let next = null;
    const churnP = plan === 'Starter' ? 0.04 : plan === 'Enterprise' ? 0.008 : 0.022;
    while (t < TODAY) {
      const r = rand();
      if (r < churnP) {
        sub.end = t - randInt(0, 20) * DAY;
        if (sub.end <= start) sub.end = start + 20 * DAY;
        sub.status = 'cancelled';
        sub.reason = weighted(REASONS);
        break;
      } else if (r < churnP + 0.02 && UPGRADE[plan]) {
        sub.end = t;
        sub.status = 'cancelled';
        sub.reason = 'Upgraded plan';
        next = { plan: UPGRADE[plan], start: t };
        break;
      }
      t = addMonths(t, 1);
    }
    if (!next) break;
    plan = next.plan;
    start = next.start;
    seats = Math.max(seats + randInt(0, 10), seatsFor(plan));
  }
}
// some active subscriptions fall past due
for (const s of subscriptions) {
  if (s.status === 'active' && TODAY - s.start > 70 * DAY && rand() < 0.07) s.status = 'past_due';
}

// ---------- invoices ----------
const invoices = [];
let invId = 0;
for (const s of subscriptions) {
  if (s.status === 'trialing') continue;
  const a = accounts[s.account - 1];
  const price = PLAN[s.plan].price;
  const stop = s.end ?? TODAY + DAY;
  const issuedList = [];
  for (let t = s.start; t < stop && t <= TODAY; t = addMonths(t, 1)) issuedList.push(t);
  const slowPayer = rand() < 0.15;
  issuedList.forEach((issued, k) => {
    const isLast = k === issuedList.length - 1;
    const fromEnd = issuedList.length - 1 - k;
    let amount = Math.round(s.seats * price * (1 - a.discount) * 100) / 100;
    // occasional prorated first invoice
    if (k === 0 && rand() < 0.15) amount = Math.round(amount * (randInt(30, 90) / 100) * 100) / 100;
    const netDays = s.plan === 'Enterprise' ? 45 : 30;
    const due = issued + netDays * DAY;
    let paid = null;
    let status;
    if (rand() < 0.012) {
      status = 'void';
    } else if (s.status === 'past_due' && fromEnd < (s.id % 3) + 1) {
      paid = null;
    } else if (s.status === 'cancelled' && isLast && s.reason !== 'Upgraded plan' && rand() < 0.18) {
      paid = null; // never paid after churn
    } else {
      const lag = slowPayer ? randInt(10, 60) : Math.round(Math.min(lognormal(1.8, 0.9), 50));
      const p = issued + lag * DAY;
      paid = p <= TODAY ? p : null;
    }
    if (!status) {
      if (paid !== null) status = 'paid';
      else if (due < TODAY) status = 'overdue';
      else status = 'open';
    }
    invoices.push({
      id: ++invId, number: `INV-${String(100000 + invId * 7 + (invId % 5)).padStart(6, '0')}`,
      sub: s.id, issued, due, paid, amount, status,
    });
  });
}

// ---------- users ----------
const users = [];
let userId = 0;
const ROLES_OTHER = [['member', 70], ['admin', 12], ['viewer', 12], ['billing admin', 6]];
for (const a of accounts) {
  const subs = subscriptions.filter((s) => s.account === a.id);
  const maxSeats = subs.reduce((m, s) => Math.max(m, s.seats), 0);
  let n;
  if (subs.length === 0) n = rand() < 0.5 ? 0 : 1;
  else n = Math.max(1, Math.min(maxSeats, Math.round(Math.sqrt(maxSeats) * (1 + rand() * 1.2))));
  if (subs.length > 0 && rand() < 0.015) n = 0; // a couple of accounts with no user records
  const churned = subs.length > 0 && subs.every((s) => s.status === 'cancelled');
  const churnEnd = churned ? Math.max(...subs.map((s) => s.end)) : null;
  const domain = a.name.toLowerCase().replace(/&/g, 'and').replace(/[^a-z0-9]+/g, '') + '.com';
  const localUsed = new Set();
  for (let k = 0; k < n; k++) {
    let first, last, local;
    do {
      first = pick(FIRST);
      last = pick(LAST);
      local = `${first}.${last}`.toLowerCase().replace(/[^a-z.]/g, '');
    } while (localUsed.has(local));
    localUsed.add(local);
    const role = k === 0 ? 'owner' : weighted(ROLES_OTHER);
    const createdLimit = churnEnd ?? TODAY;
    const created = k === 0 ? a.signup + randInt(0, 36000) * 1000
      : a.signup + Math.floor(Math.pow(rand(), 1.8) * Math.max(DAY, createdLimit - a.signup));
    let lastLogin = null;
    if (rand() > (k === 0 ? 0.03 : 0.12)) {
      const upper = churnEnd ?? NOW;
      // skew toward recent activity
      const span = Math.max(3600000, upper - created);
      lastLogin = upper - Math.floor(Math.pow(rand(), 2.5) * span);
      if (lastLogin > NOW) lastLogin = NOW - 3600000;
      lastLogin = lastLogin - (lastLogin % 60000);
    }
    users.push({
      id: ++userId, account: a.id, email: `${local}@${domain}`, name: `${first} ${last.replace('OBrien', "O'Brien")}`,
      role, created: created - (created % 60000), lastLogin,
    });
  }
}

// ---------- support tickets ----------
const tickets = [];
const CATS = [['Bug Report', 30], ['How-To Question', 24], ['Billing Question', 16], ['Feature Request', 12],
  ['Account Access', 10], ['Data Import', 6], ['Integration Issue', 9]];
const SUBJECTS = {
  'Bug Report': ['Dashboard fails to load', 'Export to CSV produces empty file', 'Charts show wrong totals',
    'Error 500 when saving report', 'Notifications sent twice', 'Search returns stale results'],
  'How-To Question': ['How do I add a teammate?', 'Setting up scheduled reports', 'Custom fields on records',
    'How to change the workspace owner', 'Filtering by date range'],
  'Billing Question': ['Invoice shows wrong seat count', 'Update credit card', 'Request a VAT invoice',
    'Refund for unused seats', 'Change billing contact'],
  'Feature Request': ['Dark mode please', 'Support for SAML groups', 'More granular permissions',
    'Bulk edit records', 'API rate limit increase'],
  'Account Access': ['Locked out after password reset', 'SSO login loop', '2FA device lost', 'Cannot accept invite'],
  'Data Import': ['CSV import stuck at 90%', 'Importing from spreadsheet', 'Duplicate rows after import'],
  'Integration Issue': ['Slack integration disconnected', 'Salesforce sync failing', 'Webhook not firing',
    'Zapier trigger missing fields'],
};
const STATUS_OPEN = [['open', 60], ['waiting on customer', 40]];
const accWeights = accounts.map((a) => {
  const us = users.filter((u) => u.account === a.id);
  const seats = subscriptions.filter((s) => s.account === a.id).reduce((m, s) => Math.max(m, s.seats), 0);
  const ageYears = Math.min(1.5, (TODAY - a.signup) / (365 * DAY));
  return [a, us.length === 0 ? 0 : Math.sqrt(seats + 1) * ageYears * (rand() < 0.35 ? 0 : 1)];
}).filter(([, w]) => w > 0);
const N_TICKETS = 640;
for (let i = 1; i <= N_TICKETS; i++) {
  const a = weighted(accWeights);
  const us = users.filter((u) => u.account === a.id);
  const subs = subscriptions.filter((s) => s.account === a.id);
  const upper = subs.length && subs.every((s) => s.status === 'cancelled') ? Math.max(...subs.map((s) => s.end)) : NOW;
  const lower = a.signup + DAY;
  const span = Math.max(DAY, upper - lower);
  let opened = lower + Math.floor(rand() * span);
  if (opened > NOW - 3600000) opened = NOW - randInt(2, 48) * 3600000;
  const eligible = us.filter((u) => u.created <= opened);
  const opener = rand() < 0.08 || eligible.length === 0 ? null : pick(eligible);
  opened -= opened % 60000;
  const category = weighted(CATS);
  const priority = category === 'Account Access'
    ? weighted([['normal', 30], ['high', 45], ['urgent', 25]])
    : weighted([['low', 25], ['normal', 45], ['high', 22], ['urgent', 8]]);
  const baseH = { low: 60, normal: 30, high: 10, urgent: 3 }[priority];
  const hours = lognormal(Math.log(baseH), 0.9);
  let resolved = opened + Math.round(hours * 3600000);
  resolved -= resolved % 60000;
  let status = 'resolved';
  let rating = null;
  const ageDays = (NOW - opened) / DAY;
  if (resolved > NOW || (ageDays < 20 && rand() < 0.35) || rand() < 0.03) {
    resolved = null;
    status = weighted(STATUS_OPEN);
  } else if (rand() < 0.58) {
    const r = hours > baseH * 2 ? weighted([[1, 20], [2, 25], [3, 30], [4, 15], [5, 10]])
      : weighted([[1, 3], [2, 5], [3, 15], [4, 37], [5, 40]]);
    rating = r;
  }
  tickets.push({ id: i, account: a.id, opener: opener ? opener.id : null, subject: pick(SUBJECTS[category]),
    category, priority, status, opened, resolved, rating });
}
tickets.sort((x, y) => x.opened - y.opened);
tickets.forEach((t, i) => (t.id = i + 1));

// ---------- SQL ----------
const q = (v) => (v === null || v === undefined ? 'NULL' : `'${String(v).replace(/'/g, "''")}'`);
const num = (v) => (v === null || v === undefined ? 'NULL' : String(v));
const money = (v) => v.toFixed(2);
function inserts(table, cols, rows) {
  const out = [];
  for (let i = 0; i < rows.length; i += 200) {
    const chunk = rows.slice(i, i + 200).map((r) => `  (${r.join(', ')})`).join(',\n');
    out.push(`INSERT INTO saas.${table} (${cols.join(', ')}) VALUES\n${chunk};`);
  }
  return out.join('\n');
}

const ddl = `-- B2B SaaS evaluation set "saas". Generated by generate.mjs (seeded, deterministic). Do not edit by hand.
CREATE SCHEMA saas;

CREATE TABLE saas.plans (
  plan_id integer PRIMARY KEY,
  plan_name text NOT NULL UNIQUE,
  tier text NOT NULL,
  monthly_price_per_seat numeric(12,2) NOT NULL,
  launched_on date NOT NULL,
  retired_on date
);
COMMENT ON COLUMN saas.plans.monthly_price_per_seat IS 'List price per seat per month (USD)';

CREATE TABLE saas.accounts (
  account_id integer PRIMARY KEY,
  company_name text NOT NULL UNIQUE,
  industry text,
  country text NOT NULL,
  employee_count integer,
  signup_date date NOT NULL,
  sales_rep text,
  discount_pct numeric(5,2) NOT NULL DEFAULT 0
);
COMMENT ON COLUMN saas.accounts.sales_rep IS 'Account executive who owns the account; NULL for self-serve accounts';
COMMENT ON COLUMN saas.accounts.discount_pct IS 'Negotiated discount off list price, percent';

CREATE TABLE saas.subscriptions (
  subscription_id integer PRIMARY KEY,
  account_id integer NOT NULL REFERENCES saas.accounts(account_id),
  plan_id integer NOT NULL REFERENCES saas.plans(plan_id),
  seats integer NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'cancelled', 'trialing', 'past_due')),
  started_on date NOT NULL,
  cancelled_on date,
  cancellation_reason text
);
COMMENT ON COLUMN saas.subscriptions.cancelled_on IS 'Date the subscription ended; NULL while it is running';

CREATE TABLE saas.invoices (
  invoice_id integer PRIMARY KEY,
  invoice_number text NOT NULL UNIQUE,
  subscription_id integer NOT NULL REFERENCES saas.subscriptions(subscription_id),
  issued_date date NOT NULL,
  due_date date NOT NULL,
  paid_date date,
  amount numeric(12,2) NOT NULL,
  status text NOT NULL CHECK (status IN ('paid', 'open', 'overdue', 'void'))
);
COMMENT ON COLUMN saas.invoices.amount IS 'Invoice total in USD';

CREATE TABLE saas.users (
  user_id integer PRIMARY KEY,
  account_id integer NOT NULL REFERENCES saas.accounts(account_id),
  email text NOT NULL UNIQUE,
  full_name text NOT NULL,
  role text NOT NULL,
  created_at timestamptz NOT NULL,
  last_login_at timestamptz
);
COMMENT ON COLUMN saas.users.last_login_at IS 'NULL when the user was invited but never logged in';

CREATE TABLE saas.support_tickets (
  ticket_id integer PRIMARY KEY,
  account_id integer NOT NULL REFERENCES saas.accounts(account_id),
  opened_by_user_id integer REFERENCES saas.users(user_id),
  subject text NOT NULL,
  category text NOT NULL,
  priority text NOT NULL,
  status text NOT NULL,
  opened_at timestamptz NOT NULL,
  resolved_at timestamptz,
  satisfaction_score integer CHECK (satisfaction_score BETWEEN 1 AND 5)
);
COMMENT ON COLUMN saas.support_tickets.satisfaction_score IS 'Customer rating of the resolution, 1-5; NULL when not rated';
`;

const parts = [ddl];
parts.push(inserts('plans', ['plan_id', 'plan_name', 'tier', 'monthly_price_per_seat', 'launched_on', 'retired_on'],
  PLANS.map((p) => [p.id, q(p.name), q(p.tier), money(p.price), q(fmtDate(p.launched)), p.retired ? q(fmtDate(p.retired)) : 'NULL'])));
parts.push(inserts('accounts', ['account_id', 'company_name', 'industry', 'country', 'employee_count', 'signup_date', 'sales_rep', 'discount_pct'],
  accounts.map((a) => [a.id, q(a.name), q(a.industry), q(a.country), num(a.employees), q(fmtDate(a.signup)), q(a.rep), money(a.discount * 100)])));
parts.push(inserts('subscriptions', ['subscription_id', 'account_id', 'plan_id', 'seats', 'status', 'started_on', 'cancelled_on', 'cancellation_reason'],
  subscriptions.map((s) => [s.id, s.account, PLAN[s.plan].id, s.seats, q(s.status), q(fmtDate(s.start)), s.end ? q(fmtDate(s.end)) : 'NULL', q(s.reason)])));
parts.push(inserts('invoices', ['invoice_id', 'invoice_number', 'subscription_id', 'issued_date', 'due_date', 'paid_date', 'amount', 'status'],
  invoices.map((v) => [v.id, q(v.number), v.sub, q(fmtDate(v.issued)), q(fmtDate(v.due)), v.paid ? q(fmtDate(v.paid)) : 'NULL', money(v.amount), q(v.status)])));
parts.push(inserts('users', ['user_id', 'account_id', 'email', 'full_name', 'role', 'created_at', 'last_login_at'],
  users.map((u) => [u.id, u.account, q(u.email), q(u.name), q(u.role), q(fmtTs(u.created)), u.lastLogin ? q(fmtTs(u.lastLogin)) : 'NULL'])));
parts.push(inserts('support_tickets', ['ticket_id', 'account_id', 'opened_by_user_id', 'subject', 'category', 'priority', 'status', 'opened_at', 'resolved_at', 'satisfaction_score'],
  tickets.map((t) => [t.id, t.account, num(t.opener), q(t.subject), q(t.category), q(t.priority), q(t.status), q(fmtTs(t.opened)), t.resolved ? q(fmtTs(t.resolved)) : 'NULL', num(t.rating)])));

writeFileSync(OUT, parts.join('\n\n') + '\n');
const total = PLANS.length + accounts.length + subscriptions.length + invoices.length + users.length + tickets.length;
console.log(JSON.stringify({ plans: PLANS.length, accounts: accounts.length, subscriptions: subscriptions.length,
  invoices: invoices.length, users: users.length, support_tickets: tickets.length, total }));
