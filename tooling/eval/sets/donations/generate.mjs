// Deterministic generator for the `donations` evaluation set.
// Plain Node ESM: seeded PRNG, no clock reads, no packages, no network.
// Usage: node generate.mjs   (writes schema.sql next to this file)
import { writeFileSync } from 'node:fs';

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
const rnd = mulberry32(20250917);
const rint = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1)); // inclusive
const pick = (arr) => arr[Math.floor(rnd() * arr.length)];
const chance = (p) => rnd() < p;
function weighted(pairs) {
  const total = pairs.reduce((s, [, w]) => s + w, 0);
  let r = rnd() * total;
  for (const [v, w] of pairs) {
    if ((r -= w) < 0) return v;
  }
  return pairs[pairs.length - 1][0];
}

// ---------- time helpers (all UTC, no clock reads) ----------
const DAY = 86400000;
const NOW = Date.UTC(2025, 8, 17, 14, 0, 0); // 2025-09-17T14:00:00Z
const D = (s) => Date.UTC(+s.slice(0, 4), +s.slice(5, 7) - 1, +s.slice(8, 10));
const pad = (n, w = 2) => String(n).padStart(w, '0');
function fmtDate(ms) {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}
function fmtTs(ms) {
  const d = new Date(ms);
  return `${fmtDate(ms)} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}
const dayStart = (ms) => Math.floor(ms / DAY) * DAY;
const addMonths = (ms, m, dom) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + m, dom);
};
const money = (x) => (Math.round(x * 100) / 100).toFixed(2);

// ---------- SQL helpers ----------
function lit(v) {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (typeof v === 'number') return String(v);
  if (v && v.raw !== undefined) return v.raw; // numeric literal already formatted
  return `'${String(v).replace(/'/g, "''")}'`;
}
const num = (s) => ({ raw: s });
function inserts(table, cols, rows, batch = 500) {
  const out = [];
  for (let i = 0; i < rows.length; i += batch) {
    const chunk = rows.slice(i, i + batch).map((r) => `  (${r.map(lit).join(', ')})`);
    out.push(`INSERT INTO donations.${table} (${cols.join(', ')}) VALUES\n${chunk.join(',\n')};`);
  }
  return out.join('\n');
}

// ---------- reference data ----------
const FIRST = ['Oliver', 'Amelia', 'George', 'Isla', 'Harry', 'Ava', 'Jack', 'Mia', 'Noah', 'Emily',
  'Leo', 'Grace', 'Arthur', 'Sophia', 'Muhammad', 'Freya', 'Oscar', 'Lily', 'Charlie', 'Ella',
  'Thomas', 'Evie', 'Henry', 'Poppy', 'William', 'Chloe', 'James', 'Sarah', 'Daniel', 'Hannah',
  'Samuel', 'Ruby', 'Joseph', 'Alice', 'Ethan', 'Zara', 'Lucas', 'Priya', 'Aidan', 'Niamh',
  'Sean', 'Siobhan', 'Liam', 'Aoife', 'Pierre', 'Camille', 'Lukas', 'Anna', 'Daan', 'Sanne',
  'Michael', 'Jennifer', 'David', 'Laura', 'Robert', 'Rachel', 'Peter', 'Fiona', 'Andrew', 'Helen',
  'Ian', 'Claire', 'Mark', 'Joanne', 'Paul', 'Karen', 'Simon', 'Nicola', 'Richard', 'Emma'];
const LAST = ['Smith', 'Jones', 'Taylor', 'Brown', 'Williams', 'Wilson', 'Johnson', 'Davies', 'Patel', 'Robinson',
  'Wright', 'Thompson', 'Evans', 'Walker', 'White', 'Roberts', 'Green', 'Hall', 'Wood', 'Jackson',
  'Clarke', 'Khan', 'Lewis', 'Hughes', 'Edwards', 'Turner', 'Hill', 'Moore', 'Cooper', 'Ward',
  'Morris', 'King', 'Harris', 'Baker', 'Martin', 'Young', 'Allen', 'Scott', 'Mitchell', 'Carter',
  'Murphy', 'Kelly', "O'Brien", 'Byrne', 'Dubois', 'Martin', 'Muller', 'Schmidt', 'de Vries', 'Jansen',
  'Anderson', 'Campbell', 'Stewart', 'Reid', 'Ahmed', 'Singh', 'Chen', 'Nguyen', 'Okafor', 'Mensah',
  'Fraser', 'Graham', 'Shaw', 'Price', 'Bennett', 'Gray', 'Marshall', 'Owen', 'Lloyd', 'Kaur'];
const ORG_A = ['Green Valley', 'Northern', 'Riverside', 'Oakwood', 'Bright Futures', 'Harbour', 'Summit',
  'Greenfield', 'Kingsway', 'Silverline', 'Meadow', 'Redbrick', 'Blue Horizon', 'Castle', 'Elmhurst',
  'Pennine', 'Thames', 'Westgate', 'Ashford', 'Lakeside', 'Copperfield', 'Highland', 'Unity', 'Beacon'];
const ORG_B = ['Foundation', 'Rotary Club', 'Trust', 'Ltd', 'plc', 'Solicitors LLP', 'Bakery', 'Church',
  'Lions Club', 'Housing Association', 'Engineering Ltd', 'Credit Union', 'Community Fund', 'Partners',
  'Family Trust', 'Primary School', 'Golf Club', 'Brewery'];
const CITIES = [
  ['United Kingdom', [['London', 30], ['Manchester', 10], ['Leeds', 9], ['Bristol', 8], ['Birmingham', 8],
    ['Edinburgh', 6], ['Glasgow', 5], ['Cardiff', 5], ['Liverpool', 5], ['Sheffield', 4], ['Newcastle', 4],
    ['York', 3], ['Brighton', 3], ['Oxford', 3], ['Cambridge', 3]], 80],
  ['Ireland', [['Dublin', 6], ['Cork', 2], ['Galway', 1]], 8],
  ['France', [['Paris', 3], ['Lyon', 1]], 3],
  ['Germany', [['Berlin', 2], ['Munich', 1]], 3],
  ['Netherlands', [['Amsterdam', 2], ['Utrecht', 1]], 3],
  ['United States', [['New York', 2], ['Boston', 1], ['Chicago', 1]], 3],
];
const DOMAINS = ['gmail.com', 'outlook.com', 'yahoo.co.uk', 'hotmail.com', 'icloud.com', 'btinternet.com', 'proton.me'];

// ---------- campaigns ----------
// [id, name, channel, goal, start, end, weight]
const CAMPAIGNS = [
  [1, 'Clean Water Fund', 'web', '100000.00', '2022-01-01', null, 1.0],
  [2, 'Monthly Giving Programme', 'web', null, '2022-01-01', null, 0],
  [3, 'Spring Fun Run 2022', 'events', '15000.00', '2022-03-01', '2022-05-31', 4],
  [4, 'Summer Schools Drive 2022', 'email', '25000.00', '2022-06-01', '2022-08-31', 4],
  [5, 'Winter Appeal 2022', 'direct mail', '50000.00', '2022-11-01', '2023-01-31', 5],
  [6, 'Spring Fun Run 2023', 'events', '20000.00', '2023-03-01', '2023-05-31', 4],
  [7, 'Summer Schools Drive 2023', 'email', '30000.00', '2023-06-01', '2023-08-31', 4],
  [8, 'Legacy Giving Pilot', 'direct mail', '25000.00', '2023-09-01', '2024-03-31', 0],
  [9, 'Winter Appeal 2023', 'direct mail', '60000.00', '2023-11-01', '2024-01-31', 5],
  [10, 'Corporate Matching 2024', 'partnerships', '80000.00', '2024-01-01', '2024-12-31', 0],
  [11, 'Emergency Flood Relief', 'social', '40000.00', '2024-02-10', '2024-04-30', 6],
  [12, 'Spring Fun Run 2024', 'events', '25000.00', '2024-03-01', '2024-05-31', 4],
  [13, 'TikTok Test Campaign', 'social', '5000.00', '2024-06-01', '2024-06-30', 0.25],
  [14, 'Summer Schools Drive 2024', 'email', '32000.00', '2024-06-01', '2024-08-31', 4],
  [15, 'Winter Appeal 2024', 'direct mail', '70000.00', '2024-11-01', '2025-01-31', 5],
  [16, 'Winter Warmth Drive', 'email', '10000.00', '2024-12-01', '2025-02-28', 2],
  [17, 'Giving Tuesday 2024', 'social', '15000.00', '2024-12-03', '2024-12-03', 90],
  [18, 'Spring Fun Run 2025', 'events', '30000.00', '2025-03-01', '2025-05-31', 4],
  [19, 'Summer Schools Drive 2025', 'email', '35000.00', '2025-06-01', '2025-08-31', 4],
  [20, 'Back to School Appeal', 'email', '12000.00', '2025-08-15', '2025-10-15', 4],
  [21, 'Autumn Gala 2025', 'events', '50000.00', '2025-09-01', '2025-11-30', 4],
  [22, 'Winter Appeal 2025', 'direct mail', '75000.00', '2025-11-01', '2026-01-31', 0],
];
const campRange = CAMPAIGNS.map((c) => ({
  id: c[0], start: D(c[4]), end: c[5] ? D(c[5]) + DAY : Infinity, w: c[6],
}));

// ---------- donors ----------
const donors = [];
const usedNames = new Set();
const N_IND = 2150;
const N_ORG = 170;
function place() {
  const country = weighted(CITIES.map((c) => [c, c[2]]));
  const city = weighted(country[1]);
  return [country[0], city];
}
function signup() {
  // growth: more signups later
  const lo = D('2021-06-01'), hi = D('2025-09-16');
  const u = Math.pow(rnd(), 0.8);
  return dayStart(lo + u * (hi - lo));
}
for (let i = 0; i < N_IND; i++) {
  let name;
  do { name = `${pick(FIRST)} ${pick(LAST)}`; } while (usedNames.has(name));
  usedNames.add(name);
  donors.push({ type: 'individual', name });
}
// two deliberate namesakes (different people, same name)
donors.push({ type: 'individual', name: 'Sarah Khan', dup: true });
donors.push({ type: 'individual', name: 'James Smith', dup: true });
for (let i = 0; i < N_ORG; i++) {
  let name;
  do { name = `${pick(ORG_A)} ${pick(ORG_B)}`; } while (usedNames.has(name));
  usedNames.add(name);
  donors.push({ type: 'organisation', name });
}
// shuffle so ids interleave types
for (let i = donors.length - 1; i > 0; i--) {
  const j = Math.floor(rnd() * (i + 1));
  [donors[i], donors[j]] = [donors[j], donors[i]];
}
donors.forEach((d, i) => {
  d.id = i + 1;
  const [country, city] = place();
  d.country = chance(0.015) ? null : country;
  let c = city;
  if (chance(0.03)) c = chance(0.5) ? c.toLowerCase() : c.toUpperCase(); // mixed-case mess
  d.city = chance(0.03) ? null : c;
  d.signup = signup();
  if (d.type === 'individual') {
    const [f, l] = d.name.split(' ');
    const local = `${f}.${d.name.slice(f.length + 1)}`.toLowerCase().replace(/[^a-z.]/g, '');
    d.email = chance(0.09) ? null : `${local}${chance(0.3) ? rint(1, 99) : ''}@${pick(DOMAINS)}`;
    if (d.country === 'United Kingdom') d.giftAid = chance(0.1) ? null : chance(0.58);
    else d.giftAid = false;
  } else {
    const slug = d.name.toLowerCase().replace(/[^a-z]+/g, '');
    d.email = chance(0.15) ? null : `${pick(['info', 'giving', 'office', 'accounts'])}@${slug}.${d.country === 'United Kingdom' ? 'co.uk' : 'com'}`;
    d.giftAid = false;
  }
});

// ---------- donations ----------
const donations = [];
function seasonW(ms) {
  const m = new Date(ms).getUTCMonth() + 1;
  if (m === 11 || m === 12) return 2.0;
  if (m >= 3 && m <= 5) return 1.3;
  return 1.0;
}
function randomTime(lo, hi) {
  for (let k = 0; k < 50; k++) {
    const t = lo + rnd() * (hi - lo);
    if (rnd() * 2 < seasonW(t)) {
      const day = dayStart(t);
      const sec = rint(7 * 3600, 23 * 3600 + 3599);
      const ts = day + sec * 1000;
      if (ts >= lo && ts < hi) return ts;
    }
  }
  return lo + Math.floor(rnd() * (hi - lo));
}
function chooseCampaign(ts, isOrg) {
  if (isOrg && ts >= D('2024-01-01') && ts < D('2025-01-01') && chance(0.45)) return 10;
  const act = campRange.filter((c) => c.w > 0 && ts >= c.start && ts < c.end);
  if (chance(0.14)) return null;
  return weighted(act.map((c) => [c.id, c.w]));
}
function indAmount() {
  const r = rnd();
  if (r < 0.012) return rint(1000, 5000) + (chance(0.5) ? 0 : rint(0, 99) / 100);
  if (r < 0.6) return pick([5, 10, 10, 15, 20, 20, 25, 25, 30, 40, 50, 50, 75, 100, 100, 150, 200, 250, 500]);
  return Math.max(2, 3 + -Math.log(1 - rnd()) * 45 + rint(0, 99) / 100);
}
function orgAmount() {
  if (chance(0.5)) return pick([250, 500, 500, 1000, 1000, 1500, 2000, 2500, 5000, 7500, 10000]);
  return 200 + -Math.log(1 - rnd()) * 2500 + rint(0, 99) / 100;
}
function indMethod() {
  if (chance(0.01)) return null;
  const m = weighted([['card', 55], ['paypal', 20], ['bank_transfer', 8], ['cheque', 7], ['cash', 10]]);
  if (m === 'card') return weighted([['card', 85], ['Card', 10], ['CARD', 5]]);
  if (m === 'paypal') return weighted([['paypal', 60], ['PayPal', 40]]);
  return m;
}
function orgMethod() {
  return weighted([['bank_transfer', 70], ['cheque', 20], ['card', 10]]);
}
function status(method) {
  const m = (method || '').toLowerCase();
  if (m === 'card' || m === 'paypal') return weighted([['succeeded', 91], ['failed', 6], ['refunded', 3]]);
  if (m === 'cheque') return weighted([['succeeded', 96], ['failed', 3], ['refunded', 1]]);
  if (m === 'cash') return 'succeeded';
  return weighted([['succeeded', 98], ['refunded', 2]]);
}

// one-off gifts
for (const d of donors) {
  const isOrg = d.type === 'organisation';
  if (chance(isOrg ? 0.22 : 0.2)) continue; // never gave a one-off
  let n = 1;
  while (n < 15 && chance(isOrg ? 0.5 : 0.6)) n++;
  const lo = Math.max(d.signup, D('2022-01-01'));
  if (lo >= NOW - DAY) continue;
  for (let k = 0; k < n; k++) {
    const ts = randomTime(lo, NOW);
    const method = isOrg ? orgMethod() : indMethod();
    const amt = isOrg ? orgAmount() : indAmount();
    donations.push({
      donor: d.id, campaign: chooseCampaign(ts, isOrg), pledge: null, amount: money(amt),
      ts, method, status: status(method), giftAid: d.giftAid,
    });
  }
}

// Giving Tuesday burst (a one-day social campaign)
{
  const gtDay = D('2024-12-03');
  const pool = donors.filter((d) => d.type === 'individual' && d.signup < gtDay);
  for (let k = 0; k < 70; k++) {
    const d = pick(pool);
    const ts = gtDay + rint(6 * 3600, 23 * 3600 + 3599) * 1000;
    const method = weighted([['card', 70], ['paypal', 25], ['PayPal', 5]]);
    donations.push({ donor: d.id, campaign: chance(0.9) ? 17 : null, pledge: null, amount: money(indAmount()),
      ts, method, status: status(method), giftAid: d.giftAid });
  }
}

// recurring pledges
const pledges = [];
const indDonors = donors.filter((d) => d.type === 'individual' && d.signup < D('2025-08-20'));
const pledgeDonors = new Set();
while (pledges.length < 300) {
  const d = pick(indDonors);
  if (pledgeDonors.has(d.id)) continue;
  pledgeDonors.add(d.id);
  const start = dayStart(Math.max(d.signup + rint(0, 240) * DAY, D('2022-01-01') + rint(0, 60) * DAY));
  if (start >= D('2025-09-10')) continue;
  const monthly = weighted([[5, 15], [10, 30], [15, 12], [20, 18], [25, 10], [30, 5], [50, 7], [100, 3]]);
  let cancel = null;
  if (chance(0.42)) {
    const c = start + rint(35, 1000) * DAY;
    if (c < NOW - DAY) cancel = dayStart(c);
  }
  const p = { id: pledges.length + 1, donor: d.id, campaign: chance(0.9) ? 2 : 1, monthly, start, cancel };
  pledges.push(p);
  const dom = Math.min(new Date(start).getUTCDate(), 28);
  for (let m = 0; ; m++) {
    const day = addMonths(start, m, dom);
    if (m === 0 && day < start) continue;
    const ts = day + (9 * 3600 + rint(0, 3599)) * 1000;
    if (ts >= NOW) break;
    if (cancel !== null && day >= cancel) break;
    const st = weighted([['succeeded', 95], ['failed', 4], ['refunded', 1]]);
    donations.push({
      donor: d.id, campaign: p.campaign, pledge: p.id, amount: money(monthly), ts,
      method: 'direct_debit', status: st, giftAid: d.giftAid,
    });
  }
}

// a few very large gifts with distinct amounts (so top-N has no ties)
const bigGifts = [
  ['2023-12-12 11:20:00', 'Green Valley Foundation', 9, '48250.00', 'bank_transfer'],
  ['2024-03-02 15:05:00', 'Northern Trust', 11, '37500.00', 'bank_transfer'],
  ['2025-01-20 10:45:00', 'Green Valley Rotary Club', 15, '22750.00', 'cheque'],
  ['2025-06-30 16:10:00', 'Harbour Foundation', 19, '31200.00', 'bank_transfer'],
];
for (const [ts, name, camp, amt, method] of bigGifts) {
  let d = donors.find((x) => x.name === name);
  if (!d) {
    d = { id: donors.length + 1, type: 'organisation', name, country: 'United Kingdom', city: 'London',
      signup: D('2021-09-14'), email: null, giftAid: false };
    donors.push(d);
  }
  if (d.signup > D(ts.slice(0, 10))) d.signup = D('2021-09-14');
  const ms = D(ts.slice(0, 10)) + ((+ts.slice(11, 13)) * 3600 + (+ts.slice(14, 16)) * 60) * 1000;
  donations.push({ donor: d.id, campaign: camp, pledge: null, amount: amt, ts: ms, method, status: 'succeeded', giftAid: false });
}
// a large refunded gift (must be excluded from money raised)
{
  const d = donors.find((x) => x.type === 'organisation' && x.country === 'United Kingdom' && x.signup < D('2024-01-01') && !bigGifts.some((b) => b[1] === x.name));
  donations.push({ donor: d.id, campaign: 15, pledge: null, amount: '40000.00', ts: D('2024-11-28') + 13 * 3600000,
    method: 'bank_transfer', status: 'refunded', giftAid: false });
}

donations.sort((a, b) => a.ts - b.ts || a.donor - b.donor);
donations.forEach((x, i) => { x.id = i + 1; });

// ---------- gift aid claims ----------
const claims = [];
for (const x of donations) {
  if (x.giftAid !== true || x.status !== 'succeeded' || x.ts >= D('2025-08-01')) continue;
  const d = new Date(x.ts);
  const claimed = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 10);
  let st = claimed < D('2025-06-01') ? weighted([['paid', 97], ['rejected', 3]]) : 'submitted';
  claims.push({ id: claims.length + 1, donation: x.id, claimed, amount: money(Number(x.amount) * 0.25), status: st });
}

// ---------- events ----------
// [id, name, campaign, venue, city, date, capacity, price]
const EVENTS = [
  [1, 'Spring Fun Run 2022 – Hyde Park', 3, 'Hyde Park', 'London', '2022-04-10', 300, '12.00'],
  [2, 'Gala Dinner 2022', 5, 'The Savoy', 'London', '2022-12-03', 180, '75.00'],
  [3, 'Spring Fun Run 2023 – Hyde Park', 6, 'Hyde Park', 'London', '2023-04-16', 400, '15.00'],
  [4, 'Quiz Night – Leeds', null, 'The Adelphi', 'Leeds', '2023-06-08', 80, '10.00'],
  [5, 'Gala Dinner 2023', 9, 'The Savoy', 'London', '2023-11-25', 200, '85.00'],
  [6, 'Flood Relief Concert', 11, 'Bridgewater Hall', 'Manchester', '2024-03-23', 300, '25.00'],
  [7, 'Spring Fun Run 2024 – Hyde Park', 12, 'Hyde Park', 'London', '2024-04-14', 500, '15.00'],
  [8, 'Spring Fun Run 2024 – Roundhay Park', 12, 'Roundhay Park', 'Leeds', '2024-04-21', 250, '12.00'],
  [9, 'Online Impact Webinar', null, 'Online', null, '2024-06-12', null, null],
  [10, 'Charity Golf Day 2024', 10, 'Wentworth Club', 'Virginia Water', '2024-07-05', 72, '150.00'],
  [11, 'Quiz Night – Manchester', null, "The Briton's Protection", 'Manchester', '2024-10-10', 60, '10.00'],
  [12, 'Gala Dinner 2024', 15, 'The Savoy', 'London', '2024-11-30', 220, '95.00'],
  [13, 'Christmas Carol Concert 2024', 15, 'St Martin-in-the-Fields', 'London', '2024-12-14', 350, '20.00'],
  [14, 'Quiz Night – Bristol', null, 'The Old Duke', 'Bristol', '2025-02-20', 70, '10.00'],
  [15, 'Online Impact Webinar 2025', null, 'Online', null, '2025-03-05', null, null],
  [16, 'Spring Fun Run 2025 – Hyde Park', 18, 'Hyde Park', 'London', '2025-04-13', 600, '18.00'],
  [17, 'Spring Fun Run 2025 – Roundhay Park', 18, 'Roundhay Park', 'Leeds', '2025-04-27', 300, '15.00'],
  [18, 'Dublin Supporters Breakfast', null, 'The Shelbourne', 'Dublin', '2025-05-09', 40, '0.00'],
  [19, 'Charity Golf Day 2025', null, 'Wentworth Club', 'Virginia Water', '2025-07-04', 72, '160.00'],
  [20, 'Summer Garden Party', 19, 'Kew Gardens', 'London', '2025-07-19', 150, '40.00'],
  [21, 'Autumn Gala 2025', 21, 'The Savoy', 'London', '2025-10-18', 250, '100.00'],
  [22, 'Christmas Carol Concert 2025', null, 'St Martin-in-the-Fields', 'London', '2025-12-13', 350, '22.00'],
];
const registrations = [];
const FILL = { 11: 1.0, 21: 0.58, 22: 0 };
for (const e of EVENTS) {
  const [id, name, , , , date, cap] = e;
  const ed = D(date);
  const target = cap === null ? rint(120, 210) : Math.round(cap * (FILL[id] ?? (0.55 + rnd() * 0.38)));
  if (target === 0) continue;
  const future = ed > NOW;
  const eligible = donors.filter((d) => d.signup < ed - 10 * DAY && (id !== 18 || d.country === 'Ireland' || chance(0.05)));
  const seen = new Set();
  let seats = 0;
  let guard = 0;
  while (seats < target && guard++ < 10000) {
    const d = pick(eligible);
    if (seen.has(d.id)) continue;
    let t = id === 10 || id === 19 ? weighted([[1, 3], [2, 3], [4, 4]]) : weighted([[1, 60], [2, 30], [3, 6], [4, 4]]);
    if (cap === null) t = 1;
    if (seats + t > target) t = target - seats;
    const lo = Math.max(ed - 90 * DAY, d.signup);
    const hi = Math.min(ed - DAY, NOW - 3600000);
    const regAt = lo + Math.floor(rnd() * (hi - lo));
    seen.add(d.id);
    seats += t;
    const attended = future ? null : chance(0.03) ? null : chance(cap === null ? 0.55 : 0.84);
    registrations.push({ event: id, donor: d.id, at: regAt, tickets: t, attended });
  }
}
registrations.sort((a, b) => a.at - b.at || a.donor - b.donor);
registrations.forEach((r, i) => { r.id = i + 1; });

// ---------- volunteers ----------
const volunteers = [];
const volNames = new Set();
for (let i = 0; i < 165; i++) {
  let first, last, donorId = null, email;
  if (i < 42) {
    const d = pick(donors.filter((x) => x.type === 'individual' && x.signup < D('2025-06-01') && !x.dup));
    if (volNames.has(d.name)) { i--; continue; }
    [first] = d.name.split(' ');
    last = d.name.slice(first.length + 1);
    donorId = d.id;
    email = d.email;
  } else {
    do { first = pick(FIRST); last = pick(LAST); } while (volNames.has(`${first} ${last}`) || usedNames.has(`${first} ${last}`));
    email = chance(0.1) ? null : `${first}.${last}`.toLowerCase().replace(/[^a-z.]/g, '') + '@' + pick(DOMAINS);
  }
  volNames.add(`${first} ${last}`);
  const [, city] = place();
  const joined = dayStart(D('2022-01-10') + rnd() * (D('2025-09-01') - D('2022-01-10')));
  volunteers.push({ id: 0, first, last, email, city: chance(0.04) ? null : city, joined, donorId });
}
volunteers.sort((a, b) => a.joined - b.joined);
volunteers.forEach((v, i) => { v.id = i + 1; });

const shifts = [];
const OFFICE_ROLES = [['office admin', 5], ['phone fundraising', 3], ['warehouse', 2], ['street collection', 3]];
const EVENT_ROLES = [['steward', 5], ['registration desk', 3], ['first aid', 1], ['catering', 2]];
for (const v of volunteers) {
  if (chance(0.1)) continue; // signed up, never did a shift
  let n = 1;
  while (n < 40 && chance(0.86)) n++;
  for (let k = 0; k < n; k++) {
    const evs = EVENTS.filter((e) => D(e[5]) >= v.joined && D(e[5]) < NOW + 60 * DAY);
    let date, eventId = null, role;
    if (evs.length && chance(0.3)) {
      const e = pick(evs);
      eventId = e[0]; date = D(e[5]); role = weighted(EVENT_ROLES);
    } else {
      date = dayStart(v.joined + rnd() * (NOW + 21 * DAY - v.joined));
      role = weighted(OFFICE_ROLES);
    }
    const future = date >= dayStart(NOW);
    const hours = future || chance(0.03) ? null : money(rint(4, 32) / 4);
    shifts.push({ volunteer: v.id, event: eventId, date, role, hours });
  }
}
shifts.sort((a, b) => a.date - b.date || a.volunteer - b.volunteer);
shifts.forEach((s, i) => { s.id = i + 1; });

// ---------- write SQL ----------
const sql = [];
sql.push(`-- donations: a nonprofit's fundraising data. Generated by generate.mjs (deterministic; do not edit by hand).
-- "now" for this set is 2025-09-17T14:00:00Z. Timestamps are UTC, stored as timestamp without time zone.
CREATE SCHEMA donations;

CREATE TABLE donations.donors (
  donor_id          integer PRIMARY KEY,
  donor_type        text NOT NULL,            -- 'individual' or 'organisation'
  name              text NOT NULL,
  email             text,
  city              text,
  country           text,
  signup_date       date NOT NULL,
  gift_aid_declared boolean                   -- UK taxpayer declaration; NULL = not asked
);

CREATE TABLE donations.campaigns (
  campaign_id  integer PRIMARY KEY,
  name         text NOT NULL,
  channel      text NOT NULL,                 -- web, email, social, direct mail, events, partnerships
  goal_amount  numeric(12,2),                 -- NULL = no target
  start_date   date NOT NULL,
  end_date     date                           -- inclusive; NULL = ongoing
);

CREATE TABLE donations.recurring_pledges (
  pledge_id      integer PRIMARY KEY,
  donor_id       integer NOT NULL REFERENCES donations.donors(donor_id),
  campaign_id    integer REFERENCES donations.campaigns(campaign_id),
  monthly_amount numeric(10,2) NOT NULL,
  started_on     date NOT NULL,
  cancelled_on   date                         -- NULL = still active
);

CREATE TABLE donations.donations (
  donation_id    integer PRIMARY KEY,
  donor_id       integer NOT NULL REFERENCES donations.donors(donor_id),
  campaign_id    integer REFERENCES donations.campaigns(campaign_id),   -- NULL = general fund
  pledge_id      integer REFERENCES donations.recurring_pledges(pledge_id), -- set for recurring instalments
  amount         numeric(12,2) NOT NULL,
  currency       char(3) NOT NULL DEFAULT 'GBP',
  donated_at     timestamp NOT NULL,
  payment_method text,
  status         text NOT NULL              -- succeeded, refunded, failed
);

CREATE TABLE donations.gift_aid_claims (
  claim_id     integer PRIMARY KEY,
  donation_id  integer NOT NULL REFERENCES donations.donations(donation_id),
  claimed_on   date NOT NULL,
  claim_amount numeric(12,2) NOT NULL,
  status       text NOT NULL               -- submitted, paid, rejected
);

CREATE TABLE donations.events (
  event_id     integer PRIMARY KEY,
  name         text NOT NULL,
  campaign_id  integer REFERENCES donations.campaigns(campaign_id),
  venue        text NOT NULL,
  city         text,
  event_date   date NOT NULL,
  capacity     integer,                      -- NULL = unlimited (online)
  ticket_price numeric(8,2)                  -- NULL = free online event
);

CREATE TABLE donations.event_registrations (
  registration_id integer PRIMARY KEY,
  event_id        integer NOT NULL REFERENCES donations.events(event_id),
  donor_id        integer NOT NULL REFERENCES donations.donors(donor_id),
  registered_at   timestamp NOT NULL,
  tickets         integer NOT NULL,
  attended        boolean                   -- NULL = not recorded / event not yet held
);

CREATE TABLE donations.volunteers (
  volunteer_id integer PRIMARY KEY,
  first_name   text NOT NULL,
  last_name    text NOT NULL,
  email        text,
  city         text,
  joined_on    date NOT NULL,
  donor_id     integer REFERENCES donations.donors(donor_id)
);

CREATE TABLE donations.volunteer_shifts (
  shift_id     integer PRIMARY KEY,
  volunteer_id integer NOT NULL REFERENCES donations.volunteers(volunteer_id),
  event_id     integer REFERENCES donations.events(event_id),
  shift_date   date NOT NULL,
  role         text NOT NULL,
  hours        numeric(4,2)                 -- NULL = not logged yet
);
`);
sql.push(inserts('donors', ['donor_id', 'donor_type', 'name', 'email', 'city', 'country', 'signup_date', 'gift_aid_declared'],
  donors.map((d) => [d.id, d.type, d.name, d.email, d.city, d.country, fmtDate(d.signup), d.giftAid])));
sql.push(inserts('campaigns', ['campaign_id', 'name', 'channel', 'goal_amount', 'start_date', 'end_date'],
  CAMPAIGNS.map((c) => [c[0], c[1], c[2], c[3] === null ? null : num(c[3]), c[4], c[5]])));
sql.push(inserts('recurring_pledges', ['pledge_id', 'donor_id', 'campaign_id', 'monthly_amount', 'started_on', 'cancelled_on'],
  pledges.map((p) => [p.id, p.donor, p.campaign, num(money(p.monthly)), fmtDate(p.start), p.cancel === null ? null : fmtDate(p.cancel)])));
sql.push(inserts('donations', ['donation_id', 'donor_id', 'campaign_id', 'pledge_id', 'amount', 'currency', 'donated_at', 'payment_method', 'status'],
  donations.map((x) => [x.id, x.donor, x.campaign, x.pledge, num(x.amount), 'GBP', fmtTs(x.ts), x.method, x.status])));
sql.push(inserts('gift_aid_claims', ['claim_id', 'donation_id', 'claimed_on', 'claim_amount', 'status'],
  claims.map((c) => [c.id, c.donation, fmtDate(c.claimed), num(c.amount), c.status])));
sql.push(inserts('events', ['event_id', 'name', 'campaign_id', 'venue', 'city', 'event_date', 'capacity', 'ticket_price'],
  EVENTS.map((e) => [e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7] === null ? null : num(e[7])])));
sql.push(inserts('event_registrations', ['registration_id', 'event_id', 'donor_id', 'registered_at', 'tickets', 'attended'],
  registrations.map((r) => [r.id, r.event, r.donor, fmtTs(r.at), r.tickets, r.attended])));
sql.push(inserts('volunteers', ['volunteer_id', 'first_name', 'last_name', 'email', 'city', 'joined_on', 'donor_id'],
  volunteers.map((v) => [v.id, v.first, v.last, v.email, v.city, fmtDate(v.joined), v.donorId])));
sql.push(inserts('volunteer_shifts', ['shift_id', 'volunteer_id', 'event_id', 'shift_date', 'role', 'hours'],
  shifts.map((s) => [s.id, s.volunteer, s.event, fmtDate(s.date), s.role, s.hours === null ? null : num(s.hours)])));

writeFileSync(new URL('./schema.sql', import.meta.url), sql.join('\n\n') + '\n');
const counts = { donors: donors.length, campaigns: CAMPAIGNS.length, recurring_pledges: pledges.length, donations: donations.length,
  gift_aid_claims: claims.length, events: EVENTS.length, event_registrations: registrations.length, volunteers: volunteers.length,
  volunteer_shifts: shifts.length };
process.stderr.write(JSON.stringify(counts) + '\n');
