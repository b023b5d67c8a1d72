// Deterministic generator for the `lettings` evaluation set.
// Plain Node ESM: no packages, no clock reads, no network. Writes schema.sql beside this file.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// ---------- PRNG (mulberry32) ----------
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
const rnd = mulberry32(20251015);
const ri = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1)); // inclusive
const pick = (arr) => arr[Math.floor(rnd() * arr.length)];
const chance = (p) => rnd() < p;
function wpick(pairs) {
  // pairs: [[value, weight], ...]
  let tot = 0;
  for (const [, w] of pairs) tot += w;
  let r = rnd() * tot;
  for (const [v, w] of pairs) {
    r -= w;
    if (r < 0) return v;
  }
  return pairs[pairs.length - 1][0];
}

// ---------- dates ----------
const DAY = 86400000;
const HOUR = 3600000;
const NOW = Date.UTC(2025, 9, 15, 9, 0, 0); // 2025-10-15T09:00:00Z
const TODAY = Date.UTC(2025, 9, 15);
const pad = (n) => String(n).padStart(2, '0');
function fmtDate(ms) {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}
function fmtTs(ms) {
  const d = new Date(ms);
  return `${fmtDate(ms)} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}+00`;
}
function addMonths(ms, n) {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + n;
  const day = d.getUTCDate();
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return Date.UTC(y, m, Math.min(day, last));
}
const dayFloor = (ms) => Math.floor(ms / DAY) * DAY;
const monthOf = (ms) => new Date(ms).getUTCMonth(); // 0..11
const yearFrac = (ms) => 1970 + ms / (365.25 * DAY);

// ---------- SQL helpers ----------
function lit(v) {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (typeof v === 'number') return String(v);
  return `'${String(v).replace(/'/g, "''")}'`;
}
const money = (x) => (x === null ? null : Math.round(x * 100) / 100);
const round5 = (x) => Math.round(x / 5) * 5;

// ---------- reference lists ----------
const FIRST = ['Oliver', 'Amelia', 'George', 'Isla', 'Harry', 'Ava', 'Noah', 'Mia', 'Jack', 'Ivy', 'Leo', 'Lily',
  'Arthur', 'Freya', 'Muhammad', 'Grace', 'Oscar', 'Sophia', 'Charlie', 'Emily', 'Jacob', 'Ella', 'Thomas', 'Poppy',
  'James', 'Chloe', 'Aisha', 'Daniel', 'Priya', 'Samuel', 'Zara', 'Joseph', 'Hannah', 'Ethan', 'Ruby', 'Adam',
  'Fatima', 'Lucas', 'Sofia', 'Ryan', 'Megan', 'Tomasz', 'Agnieszka', 'Kwame', 'Chiamaka', 'Wei', 'Mei', 'Arjun',
  'Niamh', 'Callum', 'Rhys', 'Eilidh', 'Liam', 'Sophie', 'Ben', 'Laura', 'Matthew', 'Rebecca', 'David', 'Emma'];
const LAST = ['Smith', 'Jones', 'Taylor', 'Brown', 'Williams', 'Wilson', 'Johnson', 'Davies', 'Patel', 'Robinson',
  'Wright', 'Thompson', 'Evans', 'Walker', 'White', 'Roberts', 'Green', 'Hall', 'Thomas', 'Clarke', 'Jackson',
  'Wood', 'Harris', 'Edwards', 'Turner', 'Martin', 'Cooper', 'Hill', 'Ward', 'Hughes', 'Khan', 'Ali', 'Hussain',
  'Begum', 'Nowak', 'Kowalski', 'Okafor', 'Mensah', 'Chen', 'Wang', 'Singh', 'Kaur', "O'Brien", 'Murphy', 'Kelly',
  'Campbell', 'Stewart', 'Morgan', 'Lewis', 'Price', 'Baker', 'Carter', 'Mitchell', 'Shaw', 'Lloyd', 'Fox',
  'Ahmed', 'Shah', 'Reid', 'Fraser'];
const STREETS = ['High Street', 'Station Road', 'Church Lane', 'Victoria Road', 'Park Avenue', 'Mill Lane',
  'Queens Road', 'Albert Street', 'Grange Road', 'Chapel Street', 'New Street', 'Oxford Road', 'York Street',
  'Canal Street', 'Princess Street', 'Green Lane', 'Manor Road', 'Kings Road', 'Richmond Terrace', 'Wellington Road',
  'Warwick Avenue', 'Beech Grove', 'Elm Close', 'Cavendish Place', 'Granby Row', 'Dock Street', 'Foundry Lane'];
const EMAIL_DOMAINS = ['gmail.com', 'outlook.com', 'yahoo.co.uk', 'hotmail.co.uk', 'icloud.com', 'btinternet.com'];

const CITIES = [
  { city: 'Manchester', w: 32, base: 1050, pc: 'M', hoods: [['Ancoats', 1.15], ['Didsbury', 1.2], ['Chorlton', 1.1], ['Northern Quarter', 1.18], ['Fallowfield', 0.9, true], ['Levenshulme', 0.85], ['Withington', 0.92, true], ['Salford Quays', 1.05]] },
  { city: 'Leeds', w: 18, base: 900, pc: 'LS', hoods: [['Headingley', 0.95, true], ['Hyde Park', 0.85, true], ['Chapel Allerton', 1.1], ['Roundhay', 1.15], ['Holbeck', 0.95], ['Kirkstall', 0.9]] },
  { city: 'Bristol', w: 16, base: 1250, pc: 'BS', hoods: [['Clifton', 1.25], ['Redland', 1.15], ['Bedminster', 0.95], ['Southville', 1.05], ['Easton', 0.88], ['Bishopston', 1.08]] },
  { city: 'Birmingham', w: 14, base: 950, pc: 'B', hoods: [['Jewellery Quarter', 1.12], ['Edgbaston', 1.15], ['Moseley', 1.05], ['Digbeth', 1.0], ['Harborne', 1.1], ['Selly Oak', 0.85, true]] },
  { city: 'Liverpool', w: 12, base: 800, pc: 'L', hoods: [['Baltic Triangle', 1.12], ['Toxteth', 0.85], ['Wavertree', 0.9, true], ['Allerton', 1.05], ['Anfield', 0.8], ['Georgian Quarter', 1.15]] },
  { city: 'Sheffield', w: 8, base: 750, pc: 'S', hoods: [['Kelham Island', 1.12], ['Ecclesall', 1.1], ['Broomhill', 0.92, true], ['Crookes', 0.88, true], ['Hillsborough', 0.85]] },
];

// rent inflation index relative to 2025.8
const inflation = (ms) => Math.pow(1.065, yearFrac(ms) - 2025.8);

// ---------- output buffers ----------
const rows = {
  agents: [], landlords: [], properties: [], tenants: [], leases: [],
  rent_payments: [], contractors: [], maintenance_requests: [], viewings: [],
};

// ---------- agents ----------
const AGENT_DEFS = [
  ['Hannah Brooks', 'Manchester', '2019-03-04', null],
  ['Marcus Reid', 'Manchester', '2019-06-17', null],
  ['Deepa Sharma', 'Manchester', '2021-02-01', null],
  ['Tom Fairclough', 'Manchester', '2020-09-14', '2024-06-28'],
  ['Gemma Holt', 'Leeds', '2020-01-06', null],
  ['Yusuf Karim', 'Leeds', '2022-04-19', null],
  ['Olivia Pearce', 'Bristol', '2019-11-11', null],
  ['Sam Whitfield', 'Bristol', '2023-01-09', null],
  ['Neil Docherty', 'Birmingham', '2020-05-26', null],
  ['Aaliyah Grant', 'Birmingham', '2022-08-01', null],
  ['Kieran Lowe', 'Liverpool', '2020-02-03', null],
  ['Becky Tran', 'Liverpool', '2023-05-15', null],
  ['Joanna Firth', 'Sheffield', '2021-07-05', null],
  ['Chris Adebayo', 'Manchester', '2025-09-22', null], // new starter, no properties yet
];
AGENT_DEFS.forEach(([name, branch, hired, left], i) => {
  const [f, l] = name.split(' ');
  rows.agents.push({ agent_id: i + 1, full_name: name, email: `${f.toLowerCase()}.${l.toLowerCase()}@keystonelets.co.uk`, branch, hired_on: hired, left_on: left });
});
const activeAgentsIn = (city) => rows.agents.filter((a) => a.branch === city && !a.left_on && a.hired_on < '2025-09-01');
const allAgentsIn = (city) => rows.agents.filter((a) => a.branch === city && a.hired_on < '2025-09-01');

// ---------- landlords ----------
const N_LANDLORDS = 130;
const landlordNames = new Set();
const COMPANY_NAMES = ['Northgate Property Holdings Ltd', 'Redbrick Residential Ltd', 'Harbourside Estates Ltd',
  'Pennine Homes LLP', 'Calder Lettings Ltd', 'Severn Living Ltd', 'Brunswick & Co Property', 'Mersey Key Homes Ltd',
  'Northgate Properties Ltd', 'Oakfield Investments Ltd', 'Bluebell Property Partners', 'Steel City Lets Ltd'];
for (let i = 1; i <= N_LANDLORDS; i++) {
  let name;
  let type;
  if (i <= COMPANY_NAMES.length) {
    name = COMPANY_NAMES[i - 1];
    type = 'company';
  } else if (i === 40) {
    name = "Sarah O'Neill"; type = 'individual';
  } else if (i === 41) {
    name = "Sarah O'Neil"; type = 'individual';
  } else if (i === 55) {
    name = 'Raj Patel'; type = 'individual';
  } else if (i === 56) {
    name = 'Rajesh Patel'; type = 'individual';
  } else {
    do {
      name = `${pick(FIRST)} ${pick(LAST)}`;
    } while (landlordNames.has(name));
    type = 'individual';
  }
  landlordNames.add(name);
  const joined = Date.UTC(2019, 0, 1) + Math.floor(rnd() * (Date.UTC(2025, 8, 1) - Date.UTC(2019, 0, 1)));
  const slug = name.toLowerCase().replace(/[^a-z]+/g, '.').replace(/^\.|\.$/g, '');
  rows.landlords.push({
    landlord_id: i,
    display_name: name,
    landlord_type: type,
    email: chance(0.06) ? null : `${slug}@${type === 'company' ? 'company-mail.co.uk' : pick(EMAIL_DOMAINS)}`,
    phone: chance(0.15) ? null : `07${ri(100, 999)} ${ri(100000, 999999)}`,
    joined_on: fmtDate(joined),
    mgmt_fee_pct: chance(0.05) ? null : wpick([[8, 2], [10, 5], [12, 6], [12.5, 2], [14, 3], [15, 2]]),
    _joined: joined,
  });
}
// property counts per landlord: skewed; ids 118..130 own nothing
function landlordFor() {
  return wpick([
    [1, 60], // Northgate Property Holdings (big)
    [2, 14], [3, 12], [4, 10], [5, 9], [6, 8], [7, 7], [8, 6], [9, 3], [10, 5], [11, 4], [12, 4],
    ...Array.from({ length: 105 }, (_, k) => [13 + k, k % 7 === 0 ? 4 : k % 3 === 0 ? 2 : 1.2]),
  ]);
}

// ---------- contractors ----------
const CONTRACTOR_DEFS = [
  ['A1 Plumbing', 'plumbing', 'Manchester'], ['A1 Plumbing & Heating', 'heating', 'Manchester'],
  ['FlowRight Plumbers', 'plumbing', 'Leeds'], ['Northern Gas Services', 'heating', null],
  ['WarmHome Boiler Care', 'heating', 'Bristol'], ['BrightSpark Electrical', 'electrical', null],
  ['Volt Electrical Contractors', 'electrical', 'Birmingham'], ['Lumen Electrics', 'electrical', 'Bristol'],
  ['HandyPro Maintenance', 'general', 'Manchester'], ['FixIt Fast', 'general', 'Leeds'],
  ['Jim Carey Handyman Services', 'general', 'Liverpool'], ['Bristol Property Repairs', 'general', 'Bristol'],
  ['KeyMaster Locksmiths', 'locks', null], ['SecureLock 24/7', 'locks', 'Birmingham'], ['PestAway', 'pest', null],
  ['Vermin Control North', 'pest', 'Leeds'], ['DryWall Damp Specialists', 'damp_mould', null],
  ['Mould Busters', 'damp_mould', 'Sheffield'], ['Appliance Doctor', 'appliance', null],
  ['WhiteGoods Repair Co', 'appliance', 'Birmingham'], ['Apex Roofing', 'roofing', null],
  ['TopTile Roofers', 'roofing', 'Bristol'], ['Glaze & Go Windows', 'windows', null],
  ['ClearView Glazing', 'windows', 'Sheffield'], ['Mersey Maintenance', 'general', 'Liverpool'],
  ['Sheaf Valley Plumbing', 'plumbing', 'Sheffield'], ['Handy Andy Repairs', 'general', 'Birmingham'],
  ['Pristine Drains', 'plumbing', 'Birmingham'], ['Coastline Property Care', 'general', 'Liverpool'],
];
CONTRACTOR_DEFS.forEach(([name, trade, city], i) => {
  rows.contractors.push({
    contractor_id: i + 1, company_name: name, trade, base_city: city,
    phone: chance(0.1) ? null : `0${ri(113, 191)} ${ri(100, 999)} ${ri(1000, 9999)}`,
    is_preferred: chance(0.4),
  });
});
// contractors 24 (ClearView Glazing), 27 (Handy Andy Repairs), 29 (Coastline Property Care) never get jobs
const UNUSED_CONTRACTORS = new Set([24, 27, 29]);
const contractorsByTrade = {};
for (const c of rows.contractors) {
  if (UNUSED_CONTRACTORS.has(c.contractor_id)) continue;
  (contractorsByTrade[c.trade] ||= []).push(c);
}

// ---------- tenants ----------
const N_TENANTS = 1200;
const tenantEmailSeen = new Set();
for (let i = 1; i <= N_TENANTS; i++) {
  const f = pick(FIRST);
  const l = pick(LAST);
  let email;
  let n = 0;
  do {
    email = `${f.toLowerCase()}.${l.toLowerCase().replace(/[^a-z]/g, '')}${n ? n : ''}@${pick(EMAIL_DOMAINS)}`;
    n++;
  } while (tenantEmailSeen.has(email));
  tenantEmailSeen.add(email);
  const age = ri(19, 62);
  rows.tenants.push({
    tenant_id: i, first_name: f, last_name: l, email,
    phone: chance(0.08) ? null : `07${ri(100, 999)} ${ri(100000, 999999)}`,
    date_of_birth: chance(0.12) ? null : fmtDate(Date.UTC(2025 - age, ri(0, 11), ri(1, 28))),
    annual_income: chance(0.3) ? null : Math.round((age < 23 ? ri(8, 22) : ri(22, 95)) * 1000 / 500) * 500,
    registered_at: null, // filled later
    _firstUse: null,
  });
}
// registration order: tenants are handed out to tenancies in a shuffled order
const tenantQueue = rows.tenants.map((t) => t.tenant_id);
for (let i = tenantQueue.length - 1; i > 0; i--) {
  const j = Math.floor(rnd() * (i + 1));
  [tenantQueue[i], tenantQueue[j]] = [tenantQueue[j], tenantQueue[i]];
}
let tenantCursor = 0;
const tenantFreeFrom = new Map(); // tenant_id -> ms when their last tenancy ended
function noteTenantUse(tid, ms) {
  const t = rows.tenants[tid - 1];
  if (t._firstUse === null || ms < t._firstUse) t._firstUse = ms;
}
function newTenantFor(startMs) {
  // 9% of new tenancies go to an existing tenant who moved out earlier (a mover)
  if (chance(0.09)) {
    const cands = [];
    for (const [tid, free] of tenantFreeFrom) if (free < startMs - 7 * DAY && free > startMs - 400 * DAY) cands.push(tid);
    if (cands.length) {
      const tid = cands[Math.floor(rnd() * cands.length)];
      tenantFreeFrom.delete(tid);
      return tid;
    }
  }
  if (tenantCursor >= 1010) {
    // keep the tail of the queue as never-let tenants; reuse movers instead
    const cands = [...tenantFreeFrom.keys()];
    if (cands.length) {
      const tid = cands[Math.floor(rnd() * cands.length)];
      tenantFreeFrom.delete(tid);
      return tid;
    }
  }
  return tenantQueue[tenantCursor++];
}

// ---------- properties, leases, payments ----------
const N_PROPERTIES = 480;
const listedWeights = [
  [[2020, 6, 2020, 11], 7], [[2021, 0, 2021, 11], 14], [[2022, 0, 2022, 11], 17], [[2023, 0, 2023, 11], 20],
  [[2024, 0, 2024, 11], 23], [[2025, 0, 2025, 8], 19],
];
let leaseId = 0;
let paymentId = 0;
const leasesByProperty = new Map();
const propCity = new Map();

for (let p = 1; p <= N_PROPERTIES; p++) {
  const c = wpick(CITIES.map((x) => [x, x.w]));
  const [hood, hoodFactor, student] = pick(c.hoods);
  const ptype = wpick([['flat', 48], ['house', 20], ['studio', 11], ['maisonette', 8], ['bungalow', 3], ['room', 10]]);
  let beds;
  if (ptype === 'studio') beds = 0;
  else if (ptype === 'room') beds = 1;
  else if (ptype === 'flat') beds = wpick([[1, 40], [2, 45], [3, 15]]);
  else if (ptype === 'house') beds = wpick([[2, 25], [3, 45], [4, 22], [5, 8]]);
  else beds = wpick([[2, 60], [3, 40]]);
  const baths = beds >= 4 ? ri(2, 3) : beds >= 2 && chance(0.35) ? 2 : 1;
  let typeFactor = { flat: 1, house: 1.12, studio: 0.78, maisonette: 1.04, bungalow: 1.08, room: 0.5 }[ptype];
  const base = c.base * hoodFactor * typeFactor * (1 + 0.33 * Math.max(0, beds - 1)) * (0.92 + rnd() * 0.16);

  // listed date (growth over time); 6 properties are coming soon (listed in the future)
  let listed;
  if (p > N_PROPERTIES - 6) {
    listed = TODAY + ri(5, 40) * DAY;
  } else {
    const [[y1, m1, y2, m2]] = [wpick(listedWeights.map(([r, w]) => [r, w]))];
    const a = Date.UTC(y1, m1, 1);
    const b = Date.UTC(y2, m2 + 1, 0);
    listed = a + Math.floor(rnd() * ((b - a) / DAY + 1)) * DAY;
    if (listed > TODAY - 3 * DAY) listed = TODAY - ri(3, 30) * DAY;
  }
  const landlordId = landlordFor();
  const ll = rows.landlords[landlordId - 1];
  if (ll._joined > listed) { ll._joined = listed - ri(5, 60) * DAY; ll.joined_on = fmtDate(ll._joined); }

  const service = wpick([['fully_managed', 55], ['rent_collection', 25], ['let_only', 20]]);
  const agents = activeAgentsIn(c.city);
  let agentId = agents.length ? pick(agents).agent_id : null;
  if (chance(0.04)) agentId = null;
  const withdrawn = listed < Date.UTC(2024, 6, 1) && chance(0.07) ? listed + ri(200, 900) * DAY : null;
  const withdrawnOn = withdrawn !== null && withdrawn < TODAY ? withdrawn : null;
  const askingNow = round5(base * inflation(Math.min(NOW, listed)) * (listed > Date.UTC(2025, 0, 1) ? 1 : inflation(NOW) / inflation(Math.min(NOW, listed))));

  const prop = {
    property_id: p, landlord_id: landlordId, agent_id: agentId,
    address_line1: `${ri(1, 180)}${chance(0.12) ? pick(['A', 'B']) : ''} ${pick(STREETS)}${ptype === 'flat' || ptype === 'studio' ? `, Flat ${ri(1, 40)}` : ptype === 'room' ? `, Room ${ri(1, 6)}` : ''}`,
    city: c.city,
    neighbourhood: chance(0.05) ? null : hood,
    postcode: `${c.pc}${ri(1, 28)} ${ri(1, 9)}${pick(['A', 'B', 'D', 'E', 'F', 'G', 'H', 'J', 'L', 'N', 'P', 'Q', 'R', 'S', 'T', 'U', 'W', 'X', 'Y', 'Z'])}${pick(['A', 'B', 'D', 'E', 'F', 'G', 'H', 'J', 'L', 'N', 'P', 'Q', 'R', 'S', 'T', 'U', 'W', 'X', 'Y', 'Z'])}`,
    property_type: ptype, bedrooms: beds, bathrooms: baths,
    furnished: ptype === 'room' || ptype === 'studio' ? true : chance(0.45),
    service_level: service,
    asking_rent_pcm: askingNow,
    listed_on: fmtDate(listed),
    withdrawn_on: withdrawnOn ? fmtDate(withdrawnOn) : null,
    _student: !!student, _base: base, _listed: listed, _withdrawn: withdrawnOn,
  };
  rows.properties.push(prop);
  propCity.set(p, c.city);
  const plist = [];
  leasesByProperty.set(p, plist);

  // never-let properties: the 6 future listings, some recent listings, and a few unlucky ones
  const neverLet = listed > TODAY || listed > TODAY - ri(10, 60) * DAY || chance(0.03);
  if (neverLet) continue;

  let t = listed + ri(10, 60) * DAY;
  let tenantId = null;
  let rent = null;
  const endLimit = withdrawnOn ?? Infinity;
  while (true) {
    // seasonality: winter starts are slower, student areas snap to September
    if (tenantId === null) {
      const m = monthOf(t);
      if ((m === 11 || m === 0) && chance(0.55)) t += ri(15, 45) * DAY;
      if (prop._student && chance(0.7)) {
        const d = new Date(t);
        let y = d.getUTCFullYear();
        let sep = Date.UTC(y, 8, pick([1, 1, 8, 15]));
        if (sep < t) sep = Date.UTC(y + 1, 8, pick([1, 1, 8, 15]));
        if (sep - t < 220 * DAY) t = sep;
      }
    }
    const start = dayFloor(t);
    if (start >= endLimit) break;
    if (start > TODAY + 75 * DAY) break;
    const isRenewal = tenantId !== null;
    if (!isRenewal) {
      tenantId = newTenantFor(start);
      rent = round5(base * inflation(start) * (0.95 + rnd() * 0.08));
    } else {
      rent = round5(rent * (1.02 + rnd() * 0.05));
    }
    const signed = start - ri(isRenewal ? 20 : 5, isRenewal ? 60 : 35) * DAY;
    if (signed > TODAY) break; // not signed yet
    const cancelled = !isRenewal && chance(0.045);
    const term = wpick([[12, 70], [6, 14], [24, 10], [18, 6]]);
    const end = addMonths(start, term) - DAY;
    let terminated = null;
    if (!cancelled && chance(0.08) && term >= 6) {
      terminated = addMonths(start, ri(3, term - 1)) + ri(0, 20) * DAY;
    }
    if (withdrawnOn && !cancelled && (terminated ?? end) > withdrawnOn) terminated = withdrawnOn - ri(0, 10) * DAY;
    if (terminated !== null && terminated <= start) terminated = start + 30 * DAY;
    const actualEnd = terminated ?? end;
    let status;
    if (cancelled) status = 'cancelled';
    else if (start > TODAY) status = 'upcoming';
    else if (actualEnd < TODAY) status = 'ended';
    else status = 'active';
    if (terminated !== null && terminated >= TODAY) terminated = null; // only past early terminations are recorded
    const deposit = chance(0.07) ? 0 : chance(0.03) ? null : round5((rent * 12 / 52) * 5);
    leaseId++;
    const lease = {
      lease_id: leaseId, property_id: p, tenant_id: tenantId,
      start_date: fmtDate(start), end_date: fmtDate(end), monthly_rent: rent, deposit_amt: deposit,
      status, signed_on: fmtDate(signed), terminated_on: terminated !== null ? fmtDate(terminated) : null,
      _start: start, _end: actualEnd, _renewal: isRenewal,
    };
    rows.leases.push(lease);
    plist.push(lease);
    noteTenantUse(tenantId, signed);

    if (cancelled) {
      tenantFreeFrom.set(tenantId, start);
      tenantId = null;
      t = start + ri(10, 40) * DAY;
      continue;
    }

    // rent payments
    if (start <= TODAY) {
      const payer = wpick([['good', 70], ['late', 22], ['bad', 8]]);
      const lastDue = Math.min(actualEnd, TODAY);
      for (let k = 0; ; k++) {
        const due = addMonths(start, k);
        if (due > lastDue) break;
        let delay;
        let missed = false;
        if (payer === 'good') { delay = ri(-3, 1); missed = chance(0.008); if (chance(0.04)) delay = ri(2, 9); }
        else if (payer === 'late') { delay = chance(0.5) ? ri(3, 25) : ri(0, 2); missed = chance(0.035); }
        else { delay = chance(0.45) ? ri(10, 60) : ri(0, 8); missed = chance(0.2); }
        let paidOn = missed ? null : due + delay * DAY;
        if (paidOn !== null && paidOn > TODAY) paidOn = null;
        let paid = paidOn === null ? null : rent;
        if (paid !== null && payer !== 'good' && chance(payer === 'bad' ? 0.12 : 0.03)) paid = round5(rent * (0.5 + rnd() * 0.4));
        const method = paidOn === null ? null : wpick([['standing_order', 50], ['bank_transfer', 34], ['card', 10], ['cash', 3], [null, 3]]);
        paymentId++;
        rows.rent_payments.push({
          payment_id: paymentId, lease_id: leaseId, due_date: fmtDate(due), amount_due: rent,
          paid_on: paidOn === null ? null : fmtDate(paidOn), amount_paid: paid, pay_method: method, is_void: false,
        });
        // occasional duplicate entry raised in error and voided
        if (chance(0.012)) {
          paymentId++;
          rows.rent_payments.push({
            payment_id: paymentId, lease_id: leaseId, due_date: fmtDate(due), amount_due: rent,
            paid_on: paidOn === null ? null : fmtDate(paidOn + ri(0, 2) * DAY), amount_paid: paidOn === null ? null : rent,
            pay_method: paidOn === null ? null : 'bank_transfer', is_void: true,
          });
        }
      }
    }

    if (actualEnd >= TODAY || (withdrawnOn && actualEnd >= withdrawnOn - 15 * DAY)) break;
    if (terminated === null && chance(0.4)) {
      t = end + DAY; // renewal: same tenant, new lease
    } else {
      tenantFreeFrom.set(tenantId, actualEnd);
      tenantId = null;
      t = actualEnd + ri(7, 75) * DAY;
    }
  }
}

// tenant registration timestamps
for (const tn of rows.tenants) {
  let ms;
  if (tn._firstUse !== null) ms = tn._firstUse - ri(3, 120) * DAY - ri(0, 86399) * 1000;
  else ms = Date.UTC(2021, 0, 1) + Math.floor(rnd() * (NOW - 2 * DAY - Date.UTC(2021, 0, 1)));
  if (ms < Date.UTC(2020, 5, 1)) ms = Date.UTC(2020, 5, 1) + ri(0, 86399) * 1000;
  tn.registered_at = fmtTs(ms);
  tn._reg = ms;
}

// ---------- maintenance requests ----------
let reqId = 0;
const CATS = ['plumbing', 'heating', 'electrical', 'appliance', 'damp_mould', 'pest', 'locks', 'roofing', 'windows', 'general'];
const CAT_TRADE = { plumbing: 'plumbing', heating: 'heating', electrical: 'electrical', appliance: 'appliance', damp_mould: 'damp_mould', pest: 'pest', locks: 'locks', roofing: 'roofing', windows: 'windows', general: 'general' };
const COST = { plumbing: [80, 450], heating: [90, 900], electrical: [70, 600], appliance: [60, 520], damp_mould: [150, 1800], pest: [90, 350], locks: [60, 220], roofing: [200, 3200], windows: [120, 1100], general: [40, 380] };
const DESC = {
  plumbing: ['Leaking tap in kitchen', 'Toilet not flushing', 'Blocked sink', 'Leak under bath', 'Low water pressure'],
  heating: ['Boiler not firing', 'No hot water', 'Radiator cold', 'Boiler pressure dropping', 'Thermostat faulty'],
  electrical: ['Socket not working', 'Lights tripping fuse', 'Extractor fan broken', 'Smoke alarm beeping'],
  appliance: ['Washing machine not draining', 'Fridge not cooling', 'Oven not heating', 'Dishwasher leaking'],
  damp_mould: ['Black mould in bathroom', 'Damp patch on bedroom wall', 'Condensation on windows'],
  pest: ['Mice in kitchen', 'Wasps nest', 'Ants in kitchen', 'Bed bugs reported'],
  locks: ['Front door lock stiff', 'Lost keys - lock change', 'Window lock broken'],
  roofing: ['Roof leak after storm', 'Missing roof tiles', 'Gutter overflowing'],
  windows: ['Window will not close', 'Cracked pane', 'Blown double glazing'],
  general: ['Loose banister', 'Kitchen cupboard door off', 'Fence panel down', 'Carpet trip hazard', 'Door handle broken'],
};
// contractors: same trade and covering the city (local firms weighted 3:1 over national ones), with fallbacks
const RELATED = { plumbing: 'heating', heating: 'plumbing' };
function contractorFor(cat, city) {
  const trade = CAT_TRADE[cat];
  const covers = (c) => c.base_city === null || c.base_city === city;
  let list = (contractorsByTrade[trade] || []).filter(covers);
  if (!list.length && RELATED[trade]) list = (contractorsByTrade[RELATED[trade]] || []).filter(covers);
  if (!list.length) list = (contractorsByTrade.general || []).filter(covers);
  if (!list.length) list = contractorsByTrade[trade] || contractorsByTrade.general;
  if (list.length === 1) return list[0].contractor_id;
  // local firms get most of the work; national firms fill in
  return wpick(list.map((c) => [c.contractor_id, c.base_city === city ? 3 : 1]));
}
const maint = [];
for (const prop of rows.properties) {
  const from = prop._listed;
  const to = Math.min(prop._withdrawn ?? NOW, NOW);
  if (from >= to) continue;
  const plist = leasesByProperty.get(prop.property_id) || [];
  let rate = 0.085;
  if (prop.property_type === 'house') rate *= 1.5;
  if (prop.property_type === 'room') rate *= 1.3;
  if (prop.property_type === 'studio') rate *= 0.7;
  for (let m = from; m < to; m += 30 * DAY) {
    const mo = monthOf(m);
    const winter = mo === 10 || mo === 11 || mo === 0 || mo === 1;
    const r = rate * (winter ? 1.6 : 1);
    let n = 0;
    let x = rnd();
    while (x < r && n < 3) { n++; x = rnd() * 1.3; }
    for (let k = 0; k < n; k++) {
      let ts = m + Math.floor(rnd() * 30 * DAY);
      if (ts >= to) continue;
      // business-hours skew
      const d0 = dayFloor(ts);
      ts = d0 + (chance(0.8) ? ri(8, 19) : ri(0, 23)) * HOUR + ri(0, 59) * 60000 + ri(0, 59) * 1000;
      if (ts >= NOW) continue;
      const cat = wpick(CATS.map((c) => [c, c === 'heating' ? (winter ? 30 : 6) : c === 'damp_mould' ? (winter ? 14 : 4) : { plumbing: 20, electrical: 11, appliance: 12, pest: 4, locks: 6, roofing: 3, windows: 4, general: 16 }[c]]));
      let priority = wpick([['emergency', 6], ['high', 20], ['medium', 44], ['low', 30]]);
      if (cat === 'heating' && winter && chance(0.3)) priority = 'high';
      const lease = plist.find((l) => l.status !== 'cancelled' && l._start <= ts && ts <= l._end + DAY);
      const ageDays = (NOW - ts) / DAY;
      let status;
      if (ageDays < 21) status = wpick([['open', 35], ['in_progress', 30], ['completed', 30], ['cancelled', 5]]);
      else status = wpick([['completed', 89], ['cancelled', 7], ['open', 2], ['in_progress', 2]]);
      const durH = { emergency: [2, 30], high: [24, 120], medium: [72, 480], low: [120, 1080] }[priority];
      let closed = null;
      let contractor = null;
      let cost = null;
      if (status === 'completed') {
        closed = ts + ri(durH[0], durH[1]) * HOUR + ri(0, 3599) * 1000;
        if (closed >= NOW) { status = 'in_progress'; closed = null; }
      } else if (status === 'cancelled') {
        closed = ts + ri(1, 120) * HOUR;
        if (closed >= NOW) closed = NOW - HOUR;
      }
      if (status !== 'open' && chance(0.85)) contractor = contractorFor(cat, prop.city);
      if (status === 'completed' && contractor !== null && !chance(0.07)) {
        const [lo, hi] = COST[cat];
        let cst = lo + Math.pow(rnd(), 1.8) * (hi - lo);
        if (priority === 'emergency') cst *= 1.5;
        cost = money(Math.round(cst * 100) / 100);
      }
      maint.push({
        _ts: ts, property_id: prop.property_id, lease_id: lease ? lease.lease_id : null,
        reported_at: fmtTs(ts), closed_at: closed === null ? null : fmtTs(closed),
        category: cat, priority, status, contractor_id: contractor, cost, description: pick(DESC[cat]),
      });
    }
  }
}
maint.sort((a, b) => a._ts - b._ts || a.property_id - b.property_id);
for (const m of maint) rows.maintenance_requests.push({ request_id: ++reqId, ...m });

// ---------- viewings ----------
const viewings = [];
function viewingAgent(propertyId, ms) {
  const city = propCity.get(propertyId);
  const prop = rows.properties[propertyId - 1];
  const eligible = allAgentsIn(city).filter((a) => a.hired_on <= fmtDate(ms) && (!a.left_on || a.left_on >= fmtDate(ms)));
  if (prop.agent_id && chance(0.75)) {
    const a = rows.agents[prop.agent_id - 1];
    if (a.hired_on <= fmtDate(ms)) return a.agent_id;
  }
  // the agent who left used to handle lots of Manchester viewings
  if (city === 'Manchester' && fmtDate(ms) < '2024-06-28' && chance(0.35)) return 4;
  return eligible.length ? pick(eligible).agent_id : null;
}
function prospect(ms) {
  if (chance(0.3)) return null; // unregistered walk-in
  for (let tries = 0; tries < 6; tries++) {
    const t = rows.tenants[ri(0, N_TENANTS - 1)];
    if (t._reg <= ms) return t.tenant_id;
  }
  return null;
}
function vtime(dayMs) {
  return dayFloor(dayMs) + ri(9, 18) * HOUR + pick([0, 15, 30, 45]) * 60000;
}
for (const l of rows.leases) {
  if (l._renewal) continue;
  const signed = Date.parse(l.signed_on + 'T00:00:00Z');
  // the eventual tenant's viewing
  const vt = vtime(signed - ri(2, 21) * DAY);
  viewings.push({ _ts: vt, property_id: l.property_id, tenant_id: l.tenant_id, outcome: 'offer_made' });
  const extra = wpick([[0, 16], [1, 32], [2, 27], [3, 15], [4, 7], [6, 3]]);
  for (let k = 0; k < extra; k++) {
    const ts = vtime(signed - ri(1, 35) * DAY);
    viewings.push({ _ts: ts, property_id: l.property_id, tenant_id: prospect(ts), outcome: wpick([['attended', 58], ['no_show', 15], ['cancelled', 17], ['offer_made', 4]]) });
  }
}
// properties currently on the market (no active/upcoming lease, not withdrawn): recent and future viewings
for (const prop of rows.properties) {
  if (prop._withdrawn) continue;
  const plist = leasesByProperty.get(prop.property_id) || [];
  const occupied = plist.some((l) => l.status === 'active' || l.status === 'upcoming');
  const endingSoon = plist.some((l) => l.status === 'active' && l._end < TODAY + 60 * DAY);
  if (occupied && !endingSoon) continue;
  const from = Math.max(prop._listed, TODAY - 45 * DAY);
  const nPast = from < TODAY ? ri(0, 6) : 0;
  for (let k = 0; k < nPast; k++) {
    const ts = vtime(from + Math.floor(rnd() * (TODAY - from)));
    if (ts >= NOW) continue;
    viewings.push({ _ts: ts, property_id: prop.property_id, tenant_id: prospect(ts), outcome: wpick([['attended', 60], ['no_show', 15], ['cancelled', 20], ['offer_made', 5]]) });
  }
  const nFuture = ri(0, 4);
  for (let k = 0; k < nFuture; k++) {
    const ts = vtime(Math.max(TODAY + DAY, prop._listed) + ri(0, 21) * DAY);
    viewings.push({ _ts: ts, property_id: prop.property_id, tenant_id: prospect(NOW), outcome: null });
  }
}
viewings.sort((a, b) => a._ts - b._ts || a.property_id - b.property_id);
let vid = 0;
for (const v of viewings) {
  rows.viewings.push({
    viewing_id: ++vid, property_id: v.property_id, agent_id: viewingAgent(v.property_id, v._ts), tenant_id: v.tenant_id,
    scheduled_at: fmtTs(v._ts), outcome: v.outcome,
  });
}

// ---------- emit SQL ----------
const out = [];
out.push('-- Generated by generate.mjs (seeded, deterministic). Do not edit by hand.');
out.push('CREATE SCHEMA lettings;');
out.push('');
out.push(`CREATE TABLE lettings.agents (
  agent_id integer PRIMARY KEY,
  full_name text NOT NULL,
  email text NOT NULL,
  branch text NOT NULL,
  hired_on date NOT NULL,
  left_on date
);
COMMENT ON COLUMN lettings.agents.branch IS 'Office (city) the lettings negotiator works from';
COMMENT ON COLUMN lettings.agents.left_on IS 'Last working day; NULL while still employed';

CREATE TABLE lettings.landlords (
  landlord_id integer PRIMARY KEY,
  display_name text NOT NULL,
  landlord_type text NOT NULL CHECK (landlord_type IN ('individual', 'company')),
  email text,
  phone text,
  joined_on date NOT NULL,
  mgmt_fee_pct numeric(4,2)
);
COMMENT ON COLUMN lettings.landlords.mgmt_fee_pct IS 'Agency fee charged to the landlord, as a percentage of rent collected';

CREATE TABLE lettings.properties (
  property_id integer PRIMARY KEY,
  landlord_id integer NOT NULL REFERENCES lettings.landlords(landlord_id),
  agent_id integer REFERENCES lettings.agents(agent_id),
  address_line1 text NOT NULL,
  city text NOT NULL,
  neighbourhood text,
  postcode text NOT NULL,
  property_type text NOT NULL,
  bedrooms smallint NOT NULL,
  bathrooms smallint NOT NULL,
  furnished boolean NOT NULL,
  service_level text NOT NULL,
  asking_rent_pcm numeric(8,2) NOT NULL,
  listed_on date NOT NULL,
  withdrawn_on date
);
COMMENT ON COLUMN lettings.properties.agent_id IS 'Agent currently managing the property; NULL when unassigned';
COMMENT ON COLUMN lettings.properties.property_type IS 'flat, house, studio, maisonette, bungalow, or room (a single room in a shared house)';
COMMENT ON COLUMN lettings.properties.bedrooms IS '0 for studios';
COMMENT ON COLUMN lettings.properties.service_level IS 'fully_managed, rent_collection or let_only (agency only finds the tenant)';
COMMENT ON COLUMN lettings.properties.asking_rent_pcm IS 'Current advertised rent per calendar month, GBP';
COMMENT ON COLUMN lettings.properties.listed_on IS 'Date the property was first put on the agency''s books (future = coming soon)';
COMMENT ON COLUMN lettings.properties.withdrawn_on IS 'Date the landlord took the property off the agency''s books; NULL while still managed';

CREATE TABLE lettings.tenants (
  tenant_id integer PRIMARY KEY,
  first_name text NOT NULL,
  last_name text NOT NULL,
  email text NOT NULL UNIQUE,
  phone text,
  date_of_birth date,
  annual_income integer,
  registered_at timestamptz NOT NULL
);
COMMENT ON COLUMN lettings.tenants.annual_income IS 'Self-declared gross annual income in GBP at registration; NULL if not given';

CREATE TABLE lettings.leases (
  lease_id integer PRIMARY KEY,
  property_id integer NOT NULL REFERENCES lettings.properties(property_id),
  tenant_id integer NOT NULL REFERENCES lettings.tenants(tenant_id),
  start_date date NOT NULL,
  end_date date NOT NULL,
  monthly_rent numeric(8,2) NOT NULL,
  deposit_amt numeric(8,2),
  status text NOT NULL CHECK (status IN ('upcoming', 'active', 'ended', 'cancelled')),
  signed_on date NOT NULL,
  terminated_on date
);
COMMENT ON COLUMN lettings.leases.tenant_id IS 'Lead tenant named on the tenancy agreement';
COMMENT ON COLUMN lettings.leases.end_date IS 'Scheduled end of the fixed term';
COMMENT ON COLUMN lettings.leases.deposit_amt IS 'Security deposit held in a protection scheme, GBP; 0 = deposit-free scheme';
COMMENT ON COLUMN lettings.leases.status IS 'upcoming (signed, not started), active, ended, or cancelled (fell through before move-in; no rent is due)';
COMMENT ON COLUMN lettings.leases.terminated_on IS 'Set when the tenancy ended early, before end_date';

CREATE TABLE lettings.rent_payments (
  payment_id integer PRIMARY KEY,
  lease_id integer NOT NULL REFERENCES lettings.leases(lease_id),
  due_date date NOT NULL,
  amount_due numeric(8,2) NOT NULL,
  paid_on date,
  amount_paid numeric(8,2),
  pay_method text,
  is_void boolean NOT NULL DEFAULT false
);
COMMENT ON COLUMN lettings.rent_payments.paid_on IS 'Date the rent was received; NULL = not (yet) paid';
COMMENT ON COLUMN lettings.rent_payments.pay_method IS 'standing_order, bank_transfer, card or cash';
COMMENT ON COLUMN lettings.rent_payments.is_void IS 'TRUE for entries raised in error and voided; exclude them from rent figures';

CREATE TABLE lettings.contractors (
  contractor_id integer PRIMARY KEY,
  company_name text NOT NULL,
  trade text NOT NULL,
  base_city text,
  phone text,
  is_preferred boolean NOT NULL
);
COMMENT ON COLUMN lettings.contractors.base_city IS 'City the firm works in; NULL for national firms that cover every branch';
COMMENT ON COLUMN lettings.contractors.is_preferred IS 'On the agency''s preferred-supplier list';

CREATE TABLE lettings.maintenance_requests (
  request_id integer PRIMARY KEY,
  property_id integer NOT NULL REFERENCES lettings.properties(property_id),
  lease_id integer REFERENCES lettings.leases(lease_id),
  reported_at timestamptz NOT NULL,
  closed_at timestamptz,
  category text NOT NULL,
  priority text NOT NULL CHECK (priority IN ('low', 'medium', 'high', 'emergency')),
  status text NOT NULL CHECK (status IN ('open', 'in_progress', 'completed', 'cancelled')),
  contractor_id integer REFERENCES lettings.contractors(contractor_id),
  cost numeric(10,2),
  description text
);
COMMENT ON COLUMN lettings.maintenance_requests.lease_id IS 'Tenancy in place when the issue was reported; NULL during a void period';
COMMENT ON COLUMN lettings.maintenance_requests.closed_at IS 'When the job was completed or cancelled';
COMMENT ON COLUMN lettings.maintenance_requests.cost IS 'Invoiced cost in GBP; NULL until invoiced or when done in-house';

CREATE TABLE lettings.viewings (
  viewing_id integer PRIMARY KEY,
  property_id integer NOT NULL REFERENCES lettings.properties(property_id),
  agent_id integer REFERENCES lettings.agents(agent_id),
  tenant_id integer REFERENCES lettings.tenants(tenant_id),
  scheduled_at timestamptz NOT NULL,
  outcome text
);
COMMENT ON COLUMN lettings.viewings.tenant_id IS 'Registered applicant who booked the viewing; NULL for unregistered walk-ins';
COMMENT ON COLUMN lettings.viewings.outcome IS 'attended, no_show, cancelled, offer_made; NULL for viewings not yet held';
`);

const COLS = {
  agents: ['agent_id', 'full_name', 'email', 'branch', 'hired_on', 'left_on'],
  landlords: ['landlord_id', 'display_name', 'landlord_type', 'email', 'phone', 'joined_on', 'mgmt_fee_pct'],
  properties: ['property_id', 'landlord_id', 'agent_id', 'address_line1', 'city', 'neighbourhood', 'postcode', 'property_type', 'bedrooms', 'bathrooms', 'furnished', 'service_level', 'asking_rent_pcm', 'listed_on', 'withdrawn_on'],
  tenants: ['tenant_id', 'first_name', 'last_name', 'email', 'phone', 'date_of_birth', 'annual_income', 'registered_at'],
  leases: ['lease_id', 'property_id', 'tenant_id', 'start_date', 'end_date', 'monthly_rent', 'deposit_amt', 'status', 'signed_on', 'terminated_on'],
  rent_payments: ['payment_id', 'lease_id', 'due_date', 'amount_due', 'paid_on', 'amount_paid', 'pay_method', 'is_void'],
  contractors: ['contractor_id', 'company_name', 'trade', 'base_city', 'phone', 'is_preferred'],
  maintenance_requests: ['request_id', 'property_id', 'lease_id', 'reported_at', 'closed_at', 'category', 'priority', 'status', 'contractor_id', 'cost', 'description'],
  viewings: ['viewing_id', 'property_id', 'agent_id', 'tenant_id', 'scheduled_at', 'outcome'],
};
const ORDER = ['agents', 'landlords', 'properties', 'tenants', 'leases', 'rent_payments', 'contractors', 'maintenance_requests', 'viewings'];
for (const table of ORDER) {
  const cols = COLS[table];
  const list = rows[table];
  for (let i = 0; i < list.length; i += 500) {
    const chunk = list.slice(i, i + 500);
    out.push(`INSERT INTO lettings.${table} (${cols.join(', ')}) VALUES`);
    out.push(chunk.map((r) => `(${cols.map((c) => lit(r[c])).join(', ')})`).join(',\n') + ';');
  }
  out.push('');
}
const here = dirname(fileURLToPath(import.meta.url));
writeFileSync(join(here, 'schema.sql'), out.join('\n'));
const counts = ORDER.map((t) => `${t}=${rows[t].length}`).join(' ');
const total = ORDER.reduce((s, t) => s + rows[t].length, 0);
process.stderr.write(`${counts} total=${total}\n`);
