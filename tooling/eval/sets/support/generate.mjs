// Deterministic generator for the "support" evaluation set (customer support desk).
// Plain Node ESM, no dependencies. Usage: node generate.mjs  -> writes schema.sql next to this file.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const NOW = Date.parse('2025-03-10T15:30:00Z');
const START = Date.parse('2023-03-13T00:00:00Z');
const DAY = 86400000;
const HOUR = 3600000;
const MIN = 60000;

// ---------- seeded PRNG (mulberry32) ----------
let seed = 0x5eed2025;
function rand() {
  seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const randInt = (a, b) => a + Math.floor(rand() * (b - a + 1));
const pick = (arr) => arr[Math.floor(rand() * arr.length)];
function weighted(items, weights) {
  const total = weights.reduce((s, w) => s + w, 0);
  let r = rand() * total;
  for (let i = 0; i < items.length; i++) { r -= weights[i]; if (r < 0) return items[i]; }
  return items[items.length - 1];
}
function normal() {
  let u = 0, v = 0;
  while (u === 0) u = rand();
  while (v === 0) v = rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
const lognormal = (median, sigma) => median * Math.exp(sigma * normal());

const iso = (ms) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ') + '+00';
const isoDate = (ms) => new Date(ms).toISOString().slice(0, 10);
const q = (s) => (s === null || s === undefined ? 'NULL' : `'${String(s).replace(/'/g, "''")}'`);

// ---------- agents ----------
const agentDefs = [
  // name, team, hired_on, weight, is_active
  ['Maya Chen', 'Frontline Support', '2019-04-15', 1.4, true],
  ['Daniel Okafor', 'Frontline Support', '2020-01-06', 1.3, true],
  ['Sofia Rossi', 'Frontline Support', '2020-09-21', 1.2, true],
  ['Liam Gallagher', 'Frontline Support', '2021-02-01', 1.0, false],
  ['Aisha Rahman', 'Frontline Support', '2021-07-12', 1.1, true],
  ['Tomás Herrera', 'Frontline Support', '2022-03-14', 0.9, true],
  ['Hannah Becker', 'Frontline Support', '2022-10-03', 1.0, true],
  ['Jonah Whitfield', 'Frontline Support', '2023-11-13', 0.8, true],
  ['Priya Natarajan', 'Frontline Support', '2018-08-20', 1.6, true],
  ['Grace Kim', 'Frontline Support', '2024-06-03', 0.9, true],
  ['Marcus Bell', 'Billing Operations', '2019-11-04', 1.3, true],
  ['Elena Petrova', 'Billing Operations', '2021-05-17', 1.0, true],
  ['Nadia Haddad', 'Billing Operations', '2022-08-29', 0.9, true],
  ['Owen Price', 'Billing Operations', '2023-06-05', 0.7, true],
  ['Ravi Shankar', 'Technical Escalations', '2018-03-12', 1.2, true],
  ['Ingrid Johansson', 'Technical Escalations', '2020-06-08', 1.0, true],
  ['Kenji Watanabe', 'Technical Escalations', '2021-09-27', 1.1, true],
  ['Chloe Dubois', 'Technical Escalations', '2022-12-05', 0.8, true],
  ['Samuel Adeyemi', 'Technical Escalations', '2024-01-15', 0.7, true],
  ['Olivia Hart', 'Enterprise Success', '2019-02-18', 1.2, true],
  ['Mateo Alvarez', 'Enterprise Success', '2021-11-08', 1.0, true],
  ['Fatima Zahra', 'Enterprise Success', '2023-04-24', 0.9, true],
  ['Lucas Meyer', 'Frontline Support', '2025-02-24', 0, true],
  ['Zoe Campbell', 'Billing Operations', '2025-03-03', 0, true],
];
const LIAM_LEFT = Date.parse('2024-05-31T23:59:59Z');
const agents = agentDefs.map(([name, team, hired, w, active], i) => ({
  id: i + 1, name, team, hired_on: hired, hiredMs: Date.parse(hired + 'T09:00:00Z'), weight: w, is_active: active,
  email: name.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/ /g, '.') + '@helpdesk.example',
}));

// ---------- customers ----------
const firstWords = ['Acme', 'Bluefin', 'Cobalt', 'Driftwood', 'Evergreen', 'Foxglove', 'Granite', 'Harbor', 'Ironclad',
  'Juniper', 'Keystone', 'Lighthouse', 'Meridian', 'Northwind', 'Oakridge', 'Pinnacle', 'Quartz', 'Redwood', 'Summit',
  'Tidewater', 'Umber', 'Vantage', 'Willow', 'Xenith', 'Yellowpine', 'Zephyr', 'Aurora', 'Beacon', 'Cascade', 'Delta',
  'Ember', 'Falcon', 'Glacier', 'Horizon', 'Indigo', 'Jasper', 'Kestrel', 'Lumen', 'Maple', 'Nimbus', 'Orion',
  'Prairie', 'Quill', 'Riverbend', 'Sierra', 'Terra', 'Unity', 'Velvet', 'Wavecrest', 'Atlas', 'Brightside', 'Copperleaf',
  'Dunmore', 'Elmstead', 'Fairhaven', 'Goldcrest', 'Hollis', 'Ivywood', 'Larkspur', 'Mosaic'];
const suffixes = ['Logistics', 'Health', 'Labs', 'Analytics', 'Foods', 'Realty', 'Media', 'Robotics', 'Outfitters',
  'Dental', 'Capital', 'Energy', 'Studios', 'Freight', 'Software', 'Bakery', 'Legal', 'Pharma', 'Travel', 'Insurance',
  'Learning', 'Motors', 'Apparel', 'Architects', 'Brewing Co', 'Veterinary Clinic', 'Solar', 'Hotels'];
const NCUST = 140;
const usedNames = new Set();
const usedFirst = new Map();
const customers = [];
while (customers.length < NCUST) {
  const f = pick(firstWords);
  const s = pick(suffixes);
  const name = `${f} ${s}`;
  if (usedNames.has(name) || (usedFirst.get(f) || 0) >= 3) continue;
  usedNames.add(name); usedFirst.set(f, (usedFirst.get(f) || 0) + 1);
  const tier = weighted(['free', 'pro', 'enterprise'], [43, 39, 18]);
  const region = weighted(['North America', 'Europe', 'Asia Pacific', 'Latin America'], [40, 30, 18, 12]);
  let acv;
  if (tier === 'free') acv = 0;
  else if (tier === 'pro') {
    const seats = randInt(3, 30);
    const discount = pick([0, 0, 0, 0.05, 0.1, 0.15]);
    acv = Math.round(seats * 29 * 12 * (1 - discount) * 100) / 100;
  } else {
    const seats = randInt(40, 420);
    const discount = pick([0.05, 0.1, 0.125, 0.15, 0.2, 0.25]);
    acv = Math.round(seats * 39 * 12 * (1 - discount) * 100) / 100;
  }
  // signup: spread 2021-06 .. 2025-02, more recent customers more likely
  const signupMs = Date.parse('2021-06-01T00:00:00Z') + Math.pow(rand(), 0.8) * (Date.parse('2025-02-25T00:00:00Z') - Date.parse('2021-06-01T00:00:00Z'));
  const tierW = { free: 0.55, pro: 1.4, enterprise: 3.2 }[tier];
  customers.push({
    id: customers.length + 1, name, tier, region, acv,
    signed_up_on: isoDate(signupMs), signupMs: Date.parse(isoDate(signupMs) + 'T00:00:00Z'),
    weight: tierW * lognormal(1, 0.75),
  });
}
// customers who never contacted support
const silent = new Set();
{
  const byTier = { free: 6, pro: 3, enterprise: 2 };
  for (const t of Object.keys(byTier)) {
    const pool = customers.filter((c) => c.tier === t);
    let n = byTier[t];
    for (let i = pool.length - 1; i >= 0 && n > 0; i -= 3) { silent.add(pool[i].id); n--; }
  }
  for (const c of customers) if (silent.has(c.id)) c.weight = 0;
}

// ---------- tags and topics ----------
const tagNames = ['billing', 'invoice', 'refund', 'login issue', 'password reset', 'sso', 'bug', 'mobile app',
  'performance', 'feature request', 'integration', 'api', 'data export', 'outage', 'onboarding',
  'account cancellation', 'how-to question', 'legacy migration', 'gdpr request'];
const tags = tagNames.map((name, i) => ({ id: i + 1, name }));
const tagId = Object.fromEntries(tags.map((t) => [t.name, t.id]));

const topics = [
  { w: 15, team: 'Frontline Support', tags: ['login issue'], extra: [['password reset', 0.5], ['sso', 0.2]], prio: [3, 6, 3, 1], res: 0.6,
    subjects: ['Cannot log in after password reset', 'Locked out of my account', 'Two-factor code not arriving', 'SSO login loops back to sign-in page', 'Password reset email never arrives', 'Login page shows error 403'] },
  { w: 13, team: 'Billing Operations', tags: ['billing'], extra: [['invoice', 0.55], ['refund', 0.15]], prio: [4, 6, 2, 0.3], res: 1.0,
    subjects: ['Invoice shows wrong amount', 'Charged twice this month', 'Need a copy of last invoice', 'Update billing address on invoices', 'VAT number missing from invoice', 'Question about proration on upgrade'] },
  { w: 5, team: 'Billing Operations', tags: ['refund', 'billing'], extra: [], prio: [2, 6, 3, 0.5], res: 1.3,
    subjects: ['Refund request for duplicate charge', 'Requesting refund for unused seats', 'Refund not received yet'] },
  { w: 14, team: 'Technical Escalations', tags: ['bug'], extra: [['mobile app', 0.3], ['performance', 0.25]], prio: [1, 4, 4, 1.5], res: 2.2,
    subjects: ['Dashboard widgets not loading', 'Mobile app crashes on startup', 'Search returns no results', 'Report totals do not match', 'Page is extremely slow to load', 'Attachments fail to upload', 'Notifications stopped working'] },
  { w: 8, team: 'Frontline Support', tags: ['feature request'], extra: [['mobile app', 0.2], ['api', 0.15]], prio: [6, 4, 0.5, 0], res: 1.8,
    subjects: ['Feature request: dark mode', 'Can we get bulk edit?', 'Request: export to Google Sheets', 'Would love a Slack integration', 'Feature request: custom fields on reports'] },
  { w: 10, team: 'Technical Escalations', tags: ['integration'], extra: [['api', 0.5], ['bug', 0.2]], prio: [1, 5, 3, 1], res: 1.7,
    subjects: ['Webhook deliveries failing', 'API returns 429 too often', 'Salesforce sync stopped', 'Zapier integration not triggering', 'API key rotation question'] },
  { w: 6, team: 'Frontline Support', tags: ['data export'], extra: [['performance', 0.2], ['gdpr request', 0]], prio: [2, 6, 2, 0.3], res: 1.1,
    subjects: ['CSV export times out', 'How do I export all my data?', 'Export is missing columns', 'Scheduled export did not arrive'] },
  { w: 4, team: 'Technical Escalations', tags: ['outage'], extra: [['performance', 0.4]], prio: [0, 0.5, 3, 6], res: 0.5,
    subjects: ['Site is down for our whole team', 'Service unavailable errors', 'Everything is timing out', 'Cannot access the app at all'] },
  { w: 7, team: 'Frontline Support', tags: ['onboarding'], extra: [['how-to question', 0.3], ['sso', 0.15]], prio: [3, 6, 1, 0.2], res: 0.9,
    subjects: ['Help setting up our workspace', 'How do I invite my team?', 'Onboarding call request', 'Importing data from our old tool'] },
  { w: 4, team: 'Billing Operations', tags: ['account cancellation'], extra: [['billing', 0.6], ['refund', 0.25]], prio: [2, 6, 2, 0.2], res: 0.9,
    subjects: ['Please cancel our subscription', 'How do I close my account?', 'Downgrade to free plan'] },
  { w: 10, team: 'Frontline Support', tags: ['how-to question'], extra: [['mobile app', 0.1]], prio: [5, 6, 0.5, 0], res: 0.5,
    subjects: ['How do I change my email address?', 'Where can I find usage reports?', 'How to set up user permissions', 'Question about notification settings', 'How do I change the time zone?'] },
  { w: 4, team: 'Frontline Support', tags: [], extra: [], prio: [4, 6, 1, 0.2], res: 0.7,
    subjects: ['Quick question', 'Following up on my earlier email', 'Need help', 'Re: your message'] },
];
const PRIOS = ['low', 'normal', 'high', 'urgent'];

// ---------- tickets ----------
const NTICK = 1500;
function sampleCreated() {
  for (;;) {
    const t = START + rand() * (NOW - 30 * MIN - START);
    const frac = (t - START) / (NOW - START);
    const d = new Date(t);
    const dow = d.getUTCDay();
    const hour = d.getUTCHours();
    let w = (1 + 1.3 * frac) / 2.3;
    if (dow === 0 || dow === 6) w *= 0.4;
    if (hour < 6 || hour > 21) w *= 0.35;
    // a bump during a real outage week and the holiday dip
    const md = d.toISOString().slice(5, 10);
    if (md >= '12-23' && md <= '12-31') w *= 0.5;
    if (rand() < w) return Math.floor(t / 1000) * 1000;
  }
}
const createdList = Array.from({ length: NTICK }, sampleCreated).sort((a, b) => a - b);

const tickets = [];
const ticketTags = [];
const comments = [];
for (let i = 0; i < NTICK; i++) {
  const created = createdList[i];
  const eligible = customers.filter((c) => c.weight > 0 && c.signupMs <= created);
  const cust = weighted(eligible, eligible.map((c) => c.weight));
  const topic = weighted(topics, topics.map((t) => t.w));
  const subject = pick(topic.subjects);
  const channel = weighted(['email', 'web form', 'chat', 'phone'], [45, 22, 23, 10]);
  let prioW = topic.prio.slice();
  if (cust.tier === 'enterprise') prioW = prioW.map((w, k) => (k >= 2 ? w * 1.5 : w));
  if (cust.tier === 'free') prioW = prioW.map((w, k) => (k >= 2 ? w * 0.6 : w));
  const priority = weighted(PRIOS, prioW);
  const ageDays = (NOW - created) / DAY;

  // assignee
  let team = rand() < 0.8 ? topic.team : 'Frontline Support';
  if (cust.tier === 'enterprise' && rand() < 0.35) team = 'Enterprise Success';
  const pool = agents.filter((a) => a.team === team && a.weight > 0 && a.hiredMs <= created && (a.is_active || created <= LIAM_LEFT));
  let assignee = weighted(pool, pool.map((a) => a.weight));
  if (ageDays < 4 && rand() < 0.45) assignee = null;
  else if (rand() < 0.015) assignee = null;

  // first response
  const frMedianMin = { chat: 4, phone: 2, email: 170, 'web form': 230 }[channel] * [1.6, 1, 0.6, 0.3][PRIOS.indexOf(priority)];
  let firstResp = created + Math.max(30000, lognormal(frMedianMin, 1.0) * MIN);
  firstResp = Math.floor(firstResp / 1000) * 1000;
  if (!assignee || firstResp >= NOW) firstResp = null;

  // resolution
  const resMedianH = [70, 40, 20, 6][PRIOS.indexOf(priority)] * topic.res;
  let solved = created + Math.max(20 * MIN, lognormal(resMedianH, 1.1) * HOUR);
  if (firstResp && solved <= firstResp) solved = firstResp + randInt(5, 240) * MIN;
  solved = Math.floor(solved / 1000) * 1000;
  let status;
  const resolvedProb = ageDays > 30 ? 0.975 : 0.85;
  if (solved < NOW && rand() < resolvedProb && (assignee || rand() < 0.5)) {
    status = NOW - solved > 4 * DAY && rand() < 0.95 ? 'closed' : 'solved';
  } else {
    status = rand() < 0.6 ? 'open' : 'pending';
    solved = null;
    if (status === 'pending' && !firstResp) status = 'open';
  }
  if (!assignee && status !== 'open') {
    // unassigned tickets that were closed were spam/duplicates: closed without a reply
    firstResp = null;
  }

  // satisfaction
  let rating = null;
  if (solved && assignee && rand() < 0.42) {
    const ratio = (solved - created) / HOUR / resMedianH; // >1 slower than typical
    let base = 4.5 - 0.9 * Math.log2(Math.max(0.25, ratio)) + normal() * 0.9;
    if (assignee.name === 'Jonah Whitfield') base -= 0.8;
    if (assignee.name === 'Olivia Hart') base += 0.4;
    rating = Math.max(1, Math.min(5, Math.round(base)));
  }

  const t = {
    id: 1001 + i, customer_id: cust.id, assignee_id: assignee ? assignee.id : null, subject, channel, priority, status,
    created_at: created, first_response_at: firstResp, solved_at: solved, satisfaction_rating: rating,
  };
  tickets.push(t);

  // tags
  const tset = new Set(topic.tags);
  for (const [name, p] of topic.extra) if (rand() < p) tset.add(name);
  if (cust.tier === 'enterprise' && topic.tags.includes('bug') && rand() < 0.1) tset.add('performance');
  for (const name of tset) ticketTags.push({ ticket_id: t.id, tag_id: tagId[name] });

  // comments
  const end = solved || NOW;
  if ((channel === 'email' || channel === 'web form') && rand() < 0.35) {
    comments.push({ ticket_id: t.id, author_type: 'system', agent_id: null, is_public: true, at: created + randInt(5, 90) * 1000 });
  }
  if (firstResp) {
    comments.push({ ticket_id: t.id, author_type: 'agent', agent_id: assignee.id, is_public: true, at: firstResp });
    const extra = weighted([0, 1, 2, 3, 4], priority === 'urgent' || topic.res > 1.5 ? [2, 3, 3, 2, 1] : [5, 3, 2, 1, 0.3]);
    let who = 'customer';
    let at = firstResp;
    for (let k = 0; k < extra; k++) {
      at = Math.floor((at + rand() * (end - at) * 0.6) / 1000) * 1000;
      if (at >= end) break;
      comments.push({ ticket_id: t.id, author_type: who, agent_id: who === 'agent' ? assignee.id : null, is_public: true, at });
      who = who === 'customer' ? 'agent' : 'customer';
    }
    if (rand() < 0.15) {
      const nAt = Math.floor((firstResp + rand() * (end - firstResp)) / 1000) * 1000;
      // internal note, sometimes by a teammate from escalations
      const noteBy = rand() < 0.3 ? agents.find((a) => a.name === 'Ravi Shankar') : assignee;
      comments.push({ ticket_id: t.id, author_type: 'agent', agent_id: noteBy.id, is_public: false, at: nAt });
    }
  } else if (rand() < 0.3) {
    // customer chasing an unanswered ticket
    const at = Math.floor((created + rand() * (end - created)) / 1000) * 1000;
    if (at > created) comments.push({ ticket_id: t.id, author_type: 'customer', agent_id: null, is_public: true, at });
  }
}
comments.sort((a, b) => a.at - b.at || a.ticket_id - b.ticket_id);
comments.forEach((c, i) => { c.id = i + 1; });

// ---------- SQL ----------
const out = [];
out.push('-- Generated by generate.mjs (deterministic). Customer support desk: customers, agents, tickets, comments, tags.');
out.push('CREATE SCHEMA support;');
out.push(`CREATE TABLE support.customers (
  id integer PRIMARY KEY,
  name text NOT NULL UNIQUE,
  tier text NOT NULL CHECK (tier IN ('free', 'pro', 'enterprise')),
  region text NOT NULL,
  annual_contract_value numeric(12,2) NOT NULL,
  signed_up_on date NOT NULL
);`);
out.push(`CREATE TABLE support.agents (
  id integer PRIMARY KEY,
  name text NOT NULL UNIQUE,
  email text NOT NULL UNIQUE,
  team text NOT NULL,
  hired_on date NOT NULL,
  is_active boolean NOT NULL
);`);
out.push(`CREATE TABLE support.tickets (
  id integer PRIMARY KEY,
  customer_id integer NOT NULL REFERENCES support.customers(id),
  assignee_id integer REFERENCES support.agents(id),
  subject text NOT NULL,
  channel text NOT NULL CHECK (channel IN ('email', 'chat', 'phone', 'web form')),
  priority text NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
  status text NOT NULL CHECK (status IN ('open', 'pending', 'solved', 'closed')),
  created_at timestamptz NOT NULL,
  first_response_at timestamptz,
  solved_at timestamptz,
  satisfaction_rating smallint CHECK (satisfaction_rating BETWEEN 1 AND 5)
);`);
out.push(`CREATE TABLE support.ticket_comments (
  id integer PRIMARY KEY,
  ticket_id integer NOT NULL REFERENCES support.tickets(id),
  author_type text NOT NULL CHECK (author_type IN ('customer', 'agent', 'system')),
  agent_id integer REFERENCES support.agents(id),
  is_public boolean NOT NULL,
  created_at timestamptz NOT NULL
);`);
out.push(`CREATE TABLE support.tags (
  id integer PRIMARY KEY,
  name text NOT NULL UNIQUE
);`);
out.push(`CREATE TABLE support.ticket_tags (
  ticket_id integer NOT NULL REFERENCES support.tickets(id),
  tag_id integer NOT NULL REFERENCES support.tags(id),
  PRIMARY KEY (ticket_id, tag_id)
);`);

function inserts(table, cols, rows) {
  for (let i = 0; i < rows.length; i += 400) {
    const chunk = rows.slice(i, i + 400).map((r) => `(${r.join(', ')})`);
    out.push(`INSERT INTO support.${table} (${cols.join(', ')}) VALUES\n${chunk.join(',\n')};`);
  }
}
inserts('customers', ['id', 'name', 'tier', 'region', 'annual_contract_value', 'signed_up_on'],
  customers.map((c) => [c.id, q(c.name), q(c.tier), q(c.region), c.acv.toFixed(2), q(c.signed_up_on)]));
inserts('agents', ['id', 'name', 'email', 'team', 'hired_on', 'is_active'],
  agents.map((a) => [a.id, q(a.name), q(a.email), q(a.team), q(a.hired_on), a.is_active ? 'true' : 'false']));
inserts('tags', ['id', 'name'], tags.map((t) => [t.id, q(t.name)]));
inserts('tickets', ['id', 'customer_id', 'assignee_id', 'subject', 'channel', 'priority', 'status', 'created_at', 'first_response_at', 'solved_at', 'satisfaction_rating'],
  tickets.map((t) => [t.id, t.customer_id, t.assignee_id ?? 'NULL', q(t.subject), q(t.channel), q(t.priority), q(t.status),
    q(iso(t.created_at)), t.first_response_at ? q(iso(t.first_response_at)) : 'NULL', t.solved_at ? q(iso(t.solved_at)) : 'NULL',
    t.satisfaction_rating ?? 'NULL']));
inserts('ticket_comments', ['id', 'ticket_id', 'author_type', 'agent_id', 'is_public', 'created_at'],
  comments.map((c) => [c.id, c.ticket_id, q(c.author_type), c.agent_id ?? 'NULL', c.is_public ? 'true' : 'false', q(iso(c.at))]));
inserts('ticket_tags', ['ticket_id', 'tag_id'], ticketTags.map((r) => [r.ticket_id, r.tag_id]));

writeFileSync(join(HERE, 'schema.sql'), out.join('\n\n') + '\n');
console.log(`customers ${customers.length}, agents ${agents.length}, tags ${tags.length}, tickets ${tickets.length}, ` +
  `ticket_tags ${ticketTags.length}, ticket_comments ${comments.length}, total ${customers.length + agents.length + tags.length + tickets.length + ticketTags.length + comments.length}`);
