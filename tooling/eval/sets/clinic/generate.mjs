// Deterministic generator for the "clinic" evaluation set.
// Plain Node ESM, no dependencies, no clock reads, no network.
// Usage: node generate.mjs            (writes schema.sql next to this file)
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OUT = join(dirname(fileURLToPath(import.meta.url)), 'schema.sql');

// ---------- seeded PRNG (mulberry32) ----------
let seed = 0x5eed2025;
function rand() {
  seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const randInt = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const chance = (p) => rand() < p;
const pick = (arr) => arr[Math.floor(rand() * arr.length)];
function pickWeighted(pairs) {
  let total = 0;
  for (const [, w] of pairs) total += w;
  let r = rand() * total;
  for (const [v, w] of pairs) { r -= w; if (r < 0) return v; }
  return pairs[pairs.length - 1][0];
}
function poisson(lambda) {
  const L = Math.exp(-lambda);
  let k = 0, p = 1;
  do { k++; p *= rand(); } while (p > L);
  return k - 1;
}

// ---------- time helpers (all UTC, explicit) ----------
const DAY = 86400000;
const NOW = Date.UTC(2025, 11, 10, 15, 0, 0); // 2025-12-10T15:00:00Z (the set's "now")
const d = (y, m, day) => Date.UTC(y, m - 1, day);
const isoDate = (ms) => new Date(ms).toISOString().slice(0, 10);
const isoTs = (ms) => new Date(ms).toISOString().replace('T', ' ').replace('.000Z', '+00');
const floorDay = (ms) => Math.floor(ms / DAY) * DAY;

// ---------- SQL helpers ----------
const q = (v) => (v === null || v === undefined ? 'NULL' : `'${String(v).replace(/'/g, "''")}'`);
const n = (v) => (v === null || v === undefined ? 'NULL' : String(v));
const money = (cents) => (cents === null ? 'NULL' : (cents / 100).toFixed(2));

// ---------- clinics ----------
const clinics = [
  { id: 1, name: 'Downtown Medical Center', city: 'Portland', opened: d(2011, 5, 2), rate: 1.8 },
  { id: 2, name: 'Eastside Family Clinic', city: 'Portland', opened: d(2014, 9, 15), rate: 1.2 },
  { id: 3, name: 'Lakeview Health', city: 'Lake Oswego', opened: d(2016, 2, 1), rate: 0.8 },
  { id: 4, name: 'Riverside Pediatrics', city: 'Hillsboro', opened: d(2018, 6, 4), rate: 0.85 },
  { id: 5, name: 'Salem Outpatient Center', city: 'Salem', opened: d(2019, 3, 11), rate: 0.75 },
  { id: 6, name: 'Beaverton Family Practice', city: 'Beaverton', opened: d(2020, 10, 5), rate: 0.6 },
  { id: 7, name: 'Gresham Community Clinic', city: 'Gresham', opened: d(2024, 9, 3), rate: 0.8 },
  { id: 8, name: 'Tigard Urgent Care', city: 'Tigard', opened: d(2026, 1, 12), rate: 0 },
];

// ---------- providers ----------
const FIRST_F = ['Emily', 'Sarah', 'Jessica', 'Priya', 'Laura', 'Hannah', 'Grace', 'Olivia', 'Megan', 'Rachel',
  'Aisha', 'Mei', 'Sofia', 'Natalie', 'Claire', 'Isabel', 'Fatima', 'Julia', 'Anna', 'Rosa', 'Linda', 'Karen',
  'Maria', 'Elena', 'Chloe', 'Zoe', 'Ava', 'Mia', 'Lily', 'Nora', 'Ruth', 'Diane', 'Helen', 'Yuki', 'Amara'];
const FIRST_M = ['James', 'Michael', 'David', 'Daniel', 'Raj', 'Carlos', 'Kevin', 'Thomas', 'Andrew', 'Samuel',
  'Omar', 'Wei', 'Lucas', 'Ethan', 'Noah', 'Liam', 'Jacob', 'Marcus', 'Victor', 'Paul', 'Robert', 'George',
  'Henry', 'Luis', 'Hiroshi', 'Tyler', 'Brandon', 'Eric', 'Jason', 'Mark', 'Oliver', 'Ben', 'Frank', 'Ali'];
const LAST = ['Nguyen', 'Smith', 'Johnson', 'Patel', 'Garcia', 'Kim', 'Brown', 'Martinez', 'Lee', 'Chen',
  'Wilson', 'Anderson', 'Thompson', 'Lopez', 'Walker', 'Hall', 'Young', 'Allen', 'Wright', 'Scott', 'Hernandez',
  'Rivera', 'Campbell', 'Mitchell', 'Carter', 'Roberts', 'Phillips', 'Evans', 'Turner', 'Torres', 'Parker',
  'Collins', 'Edwards', 'Stewart', 'Morris', 'Murphy', 'Cook', 'Rogers', 'Morgan', 'Cooper', 'Peterson', 'Reed',
  'Bailey', 'Bell', 'Gomez', 'Kelly', 'Howard', 'Ward', 'Cox', 'Diaz', 'Richardson', 'Wood', 'Watson', 'Brooks',
  'Bennett', 'Gray', 'James', 'Reyes', 'Cruz', 'Hughes', 'Price', 'Myers', 'Long', 'Foster', 'Sanders', 'Ross',
  'Morales', 'Powell', 'Sullivan', 'Russell', 'Ortiz', 'Jenkins', 'Gutierrez', 'Perry', 'Butler', 'Barnes',
  'Fisher', 'Henderson', 'Coleman', 'Simmons', 'Okafor', 'Yamamoto', 'Schmidt', 'Novak', 'Haddad', 'Singh'];

// [clinic, role, specialty, hire_date, left_on, fixed name?]
const providerSpecs = [
  [1, 'doctor', 'Family Medicine', d(2012, 1, 9), null],
  [1, 'doctor', 'Family Medicine', d(2015, 7, 1), null],
  [1, 'doctor', 'Family Medicine', d(2019, 8, 19), d(2024, 6, 28)],
  [1, 'doctor', 'Internal Medicine', d(2013, 3, 4), null],
  [1, 'doctor', 'Internal Medicine', d(2021, 1, 11), null],
  [1, 'doctor', 'Cardiology', d(2014, 10, 6), null, 'Jonathan Park'],
  [1, 'doctor', 'Cardiology', d(2022, 5, 2), null],
  [1, 'doctor', 'Dermatology', d(2017, 4, 17), null],
  [1, 'doctor', 'Orthopedics', d(2018, 9, 10), d(2025, 3, 14)],
  [1, 'nurse', null, d(2012, 6, 1), null],
  [1, 'nurse', null, d(2016, 11, 14), null],
  [1, 'nurse', 'Immunization', d(2023, 2, 6), null],
  [1, 'doctor', 'Family Medicine', d(2024, 8, 5), null],        // replacement hire
  [1, 'doctor', 'Orthopedics', d(2025, 5, 19), null],           // replacement hire
  [2, 'doctor', 'Family Medicine', d(2014, 9, 15), null],
  [2, 'doctor', 'Family Medicine', d(2017, 2, 20), null],
  [2, 'doctor', 'Family Medicine', d(2023, 9, 5), null],
  [2, 'doctor', 'Pediatrics', d(2015, 1, 12), null],
  [2, 'doctor', 'Pediatrics', d(2020, 6, 1), d(2024, 11, 29)],
  [2, 'doctor', 'Obstetrics & Gynecology', d(2016, 8, 8), null],
  [2, 'nurse', null, d(2014, 9, 15), null],
  [2, 'nurse', null, d(2021, 3, 22), null],
  [3, 'doctor', 'Family Medicine', d(2016, 2, 1), null],
  [3, 'doctor', 'Family Medicine', d(2018, 4, 9), null],
  [3, 'doctor', 'Internal Medicine', d(2019, 10, 14), null],
  [3, 'doctor', 'Dermatology', d(2021, 7, 12), null],
  [3, 'nurse', null, d(2016, 2, 1), d(2025, 8, 15)],
  [3, 'nurse', null, d(2025, 8, 25), null],
  [4, 'doctor', 'Pediatrics', d(2018, 6, 4), null],
  [4, 'doctor', 'Pediatrics', d(2019, 1, 7), null],
  [4, 'doctor', 'Pediatrics', d(2022, 9, 6), null],
  [4, 'nurse', 'Immunization', d(2018, 6, 4), null],
  [4, 'nurse', null, d(2020, 2, 3), null],
  [5, 'doctor', 'Family Medicine', d(2019, 3, 11), null],
  [5, 'doctor', 'Family Medicine', d(2020, 11, 2), null],
  [5, 'doctor', 'Orthopedics', d(2021, 5, 24), null],
  [5, 'doctor', 'Internal Medicine', d(2019, 3, 11), null, 'Jonathon Park'],
  [5, 'nurse', null, d(2019, 3, 11), null],
  [5, 'nurse', null, d(2022, 1, 10), null],
  [6, 'doctor', 'Family Medicine', d(2020, 10, 5), null],
  [6, 'doctor', 'Family Medicine', d(2023, 1, 16), null],
  [6, 'doctor', 'Pediatrics', d(2020, 10, 5), null],
  [6, 'nurse', null, d(2020, 10, 5), null],
  [7, 'doctor', 'Family Medicine', d(2024, 8, 12), null],
  [7, 'doctor', 'Family Medicine', d(2024, 8, 12), null],
  [7, 'nurse', null, d(2024, 8, 19), null],
  [7, 'doctor', 'Internal Medicine', d(2025, 6, 2), null],
  [8, 'doctor', 'Family Medicine', d(2025, 12, 1), null],       // hired for a clinic not yet open: no visits
  [1, 'nurse', null, d(2025, 11, 24), null],                    // just hired: no visits yet
];
const usedNames = new Set(['Jonathan Park', 'Jonathon Park']);
const providers = providerSpecs.map(([clinic, role, specialty, hire, left, fixed], i) => {
  let name = fixed;
  while (!name) {
    const fem = chance(0.55);
    const cand = `${pick(fem ? FIRST_F : FIRST_M)} ${pick(LAST)}`;
    if (!usedNames.has(cand)) { usedNames.add(cand); name = cand; }
  }
  return { id: i + 1, clinic, role, specialty, hire, left, name, weight: 0.6 + rand() * 0.8 };
});

// ---------- insurance plans ----------
const plans = [
  { id: 1, name: 'Cascade Health PPO', insurer: 'Cascade Health', type: 'PPO', coverage: 80 },
  { id: 2, name: 'Cascade Health HMO', insurer: 'Cascade Health', type: 'HMO', coverage: 90 },
  { id: 3, name: 'Evergreen Mutual Silver', insurer: 'Evergreen Mutual', type: 'EPO', coverage: 70 },
  { id: 4, name: 'Evergreen Mutual Gold', insurer: 'Evergreen Mutual', type: 'EPO', coverage: 85 },
  { id: 5, name: 'Medicare Part B', insurer: 'Medicare', type: 'Government', coverage: 80 },
  { id: 6, name: 'Oregon Health Plan', insurer: 'Medicaid', type: 'Government', coverage: 100 },
  { id: 7, name: 'Summit Care Bronze', insurer: 'Summit Care', type: 'HDHP', coverage: 60 },
  { id: 8, name: 'Pacific Dental Basic', insurer: 'Pacific Dental', type: 'Dental', coverage: 50 }, // nobody enrolled
];

// ---------- patients ----------
const CITIES = [['Portland', 35], ['Beaverton', 12], ['Gresham', 10], ['Hillsboro', 10], ['Salem', 10],
  ['Lake Oswego', 6], ['Tigard', 6], ['Milwaukie', 4], ['Vancouver', 4], [null, 3]];
const NUM_PATIENTS = 1600;
const patients = [];
for (let i = 1; i <= NUM_PATIENTS; i++) {
  const sex = pickWeighted([['F', 52], ['M', 47], [null, 1]]);
  const firsts = sex === 'M' ? FIRST_M : sex === 'F' ? FIRST_F : pick([FIRST_F, FIRST_M]);
  let name;
  do { name = `${pick(firsts)} ${pick(LAST)}`; } while (usedNames.has(name));
  usedNames.add(name);
  const child = chance(0.22);
  const dob = child
    ? d(2008, 1, 1) + Math.floor(rand() * (d(2022, 12, 31) - d(2008, 1, 1)))
    : d(1932, 1, 1) + Math.floor(Math.pow(rand(), 0.85) * (d(2007, 6, 30) - d(1932, 1, 1)));
  const ageNow = (NOW - dob) / (365.25 * DAY);
  let plan;
  if (ageNow >= 65) plan = chance(0.85) ? 5 : pickWeighted([[1, 4], [2, 3], [null, 1]]);
  else plan = pickWeighted([[1, 26], [2, 18], [3, 13], [4, 9], [6, 15], [7, 8], [null, 11]]);
  const city = pickWeighted(CITIES);
  // visit propensity: skewed, ~10% never book anything
  const weight = chance(0.1) ? 0 : Math.pow(rand(), 2.5) * 5 + 0.35;
  // ~35% of patients join during the period, more of them later (growth); the rest are established
  let registered, arrival;
  if (weight === 0) {
    registered = d(2016, 1, 1) + Math.floor(rand() * (d(2025, 12, 10) - d(2016, 1, 1)));
    arrival = registered;
  } else if (chance(0.35)) {
    const u = (Math.sqrt(1 + 8 * rand()) - 1) / 2; // density grows 1x -> 3x over the period
    arrival = floorDay(d(2023, 12, 1) + u * (d(2025, 12, 10) - d(2023, 12, 1)));
    registered = arrival - randInt(0, 20) * DAY;
  } else {
    registered = d(2016, 1, 1) + Math.floor(rand() * (d(2023, 11, 30) - d(2016, 1, 1)));
    arrival = registered;
  }
  patients.push({ id: i, name, sex, dob, city, plan, registered, arrival, weight, child: ageNow < 18 && dob < d(2023, 1, 1) });
}
// hand-placed near-duplicates (realistic data-entry variants)
// (surnames outside LAST, so generated names never collide with them; all six are regular visitors)
const regular = { weight: 1.6, registered: d(2019, 4, 8), arrival: d(2019, 4, 8) };
Object.assign(patients[16], { name: 'Maria Gonzalez', sex: 'F' }, regular);
Object.assign(patients[911], { name: 'Maria Gonzales', sex: 'F' }, regular);
Object.assign(patients[233], { name: "Katherine O'Neil", sex: 'F' }, regular);
Object.assign(patients[1207], { name: "Kathryn O'Neill", sex: 'F' }, regular);
Object.assign(patients[402], { name: 'Jon Whitaker', sex: 'M' }, regular);
Object.assign(patients[1450], { name: 'John Whitaker', sex: 'M' }, regular);

const ageAt = (p, ms) => (ms - p.dob) / (365.25 * DAY);
function buildPool(filter) {
  const list = patients.filter((p) => p.weight > 0 && filter(p));
  const cum = []; let s = 0;
  for (const p of list) { s += p.weight; cum.push(s); }
  return { list, cum, total: s };
}
function drawFromPool(pool, day) {
  for (let tries = 0; tries < 40; tries++) {
    const r = rand() * pool.total;
    let lo = 0, hi = pool.cum.length - 1;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (pool.cum[mid] > r) hi = mid; else lo = mid + 1; }
    if (pool.list[lo].arrival <= day) return pool.list[lo];
  }
  return null;
}
const poolAll = buildPool(() => true);
const poolKids = buildPool((p) => p.child);
const poolAdults = buildPool((p) => !p.child);
const poolWomen = buildPool((p) => !p.child && p.sex === 'F' && p.dob > d(1960, 1, 1));

// ---------- procedures ----------
const procedures = [
  ['99203', 'Office visit, new patient, low complexity', 'Evaluation & Management', 17000],
  ['99204', 'Office visit, new patient, moderate complexity', 'Evaluation & Management', 25000],
  ['99213', 'Office visit, established patient, low complexity', 'Evaluation & Management', 13000],
  ['99214', 'Office visit, established patient, moderate complexity', 'Evaluation & Management', 19000],
  ['99392', 'Preventive visit, child 1-4 years', 'Preventive', 18000],
  ['99393', 'Preventive visit, child 5-11 years', 'Preventive', 18500],
  ['99394', 'Preventive visit, adolescent 12-17 years', 'Preventive', 19500],
  ['99395', 'Preventive visit, adult 18-39 years', 'Preventive', 22000],
  ['99396', 'Preventive visit, adult 40-64 years', 'Preventive', 24000],
  ['99397', 'Preventive visit, 65 years and over', 'Preventive', 26000],
  ['99421', 'Online digital visit, 5-10 minutes', 'Telehealth', 4500],
  ['99422', 'Online digital visit, 11-20 minutes', 'Telehealth', 8000],
  ['90471', 'Immunization administration, first vaccine', 'Immunization', 2800],
  ['90686', 'Influenza vaccine, quadrivalent', 'Immunization', 3500],
  ['90715', 'Tdap vaccine', 'Immunization', 5500],
  ['90651', 'HPV vaccine, 9-valent', 'Immunization', 25000],
  ['36415', 'Routine venipuncture (blood draw)', 'Laboratory', 1500],
  ['80053', 'Comprehensive metabolic panel', 'Laboratory', 4500],
  ['85025', 'Complete blood count with differential', 'Laboratory', 2500],
  ['81002', 'Urinalysis, non-automated', 'Laboratory', 1200],
  ['87880', 'Rapid strep test', 'Laboratory', 2000],
  ['87804', 'Rapid influenza test', 'Laboratory', 3000],
  ['93000', 'Electrocardiogram (ECG), complete', 'Diagnostic', 6000],
  ['93306', 'Echocardiogram, complete', 'Diagnostic', 72000],
  ['73030', 'X-ray, shoulder', 'Imaging', 9000],
  ['73560', 'X-ray, knee', 'Imaging', 8500],
  ['76805', 'Obstetric ultrasound', 'Imaging', 31000],
  ['59025', 'Fetal non-stress test', 'Diagnostic', 13000],
  ['11102', 'Skin biopsy, tangential', 'Procedure', 16000],
  ['17110', 'Destruction of benign lesions (warts)', 'Procedure', 14000],
  ['20610', 'Joint injection, major joint', 'Procedure', 11000],
  ['12001', 'Simple laceration repair', 'Procedure', 21000],
  ['29125', 'Short arm splint application', 'Procedure', 15000],
  ['96372', 'Therapeutic injection, IM/SC', 'Procedure', 4000],
  ['99050', 'After-hours service add-on', 'Evaluation & Management', 5000],   // never billed
  ['97110', 'Therapeutic exercise, 15 minutes', 'Therapy', 6500],            // never billed
];
const price = Object.fromEntries(procedures.map(([c, , , p]) => [c, p]));

// ---------- appointments ----------
const SEASON = { 1: 1.28, 2: 1.2, 3: 1.05, 4: 0.95, 5: 0.93, 6: 0.84, 7: 0.76, 8: 0.82, 9: 1.0, 10: 1.08, 11: 1.1, 12: 1.16 };
const START = d(2023, 12, 1);
const END = d(2026, 1, 24); // exclusive; future visits kept only if booked before NOW
const isFluSeason = (ms) => { const m = new Date(ms).getUTCMonth() + 1; return m >= 9 || m <= 2; };

function visitTypeFor(prov, t) {
  const tele = 0.6 + 0.9 * t; // telehealth grows over the period
  if (prov.role === 'nurse') return pickWeighted([['vaccination', 0.5], ['follow-up', 0.25], ['telehealth', 0.25 * tele]]);
  switch (prov.specialty) {
    case 'Family Medicine':
    case 'Internal Medicine':
      return pickWeighted([['new patient', 0.12], ['follow-up', 0.38], ['annual physical', 0.2], ['urgent care', 0.15], ['telehealth', 0.15 * tele]]);
    case 'Pediatrics':
      return pickWeighted([['new patient', 0.1], ['follow-up', 0.3], ['annual physical', 0.3], ['urgent care', 0.15], ['vaccination', 0.15]]);
    default:
      return pickWeighted([['new patient', 0.3], ['follow-up', 0.55], ['telehealth', 0.15 * tele]]);
  }
}
const DURATION = { 'new patient': [40, 12], 'follow-up': [20, 6], 'annual physical': [35, 8], 'urgent care': [25, 10], telehealth: [15, 5], vaccination: [10, 4] };

const appts = [];
const lines = [];
for (let day = START; day < END; day += DAY) {
  const date = new Date(day);
  const dow = date.getUTCDay();
  if (dow === 0) continue;
  const t = (day - START) / (END - START);
  const growth = 1 + 0.45 * t;
  const season = SEASON[date.getUTCMonth() + 1];
  const dowF = dow === 6 ? 0.3 : dow === 1 ? 1.15 : 1;
  for (const c of clinics) {
    if (c.rate === 0 || c.opened > day) continue;
    let ramp = 1;
    if (c.id === 7) ramp = Math.min(1, 0.35 + (day - c.opened) / (240 * DAY));
    const active = providers.filter((p) => p.clinic === c.id && p.hire <= day && (p.left === null || day < p.left));
    if (!active.length) continue;
    const k = poisson(c.rate * growth * season * dowF * ramp);
    for (let j = 0; j < k; j++) {
      const prov = pickWeighted(active.map((p) => [p, p.weight * (p.role === 'doctor' ? 1 : 0.55)]));
      const vt = visitTypeFor(prov, t);
      let patient;
      if (prov.specialty === 'Pediatrics') patient = drawFromPool(poolKids, day);
      else if (prov.specialty === 'Obstetrics & Gynecology') patient = drawFromPool(poolWomen, day);
      else if (['Cardiology', 'Orthopedics', 'Dermatology', 'Internal Medicine'].includes(prov.specialty)) patient = drawFromPool(poolAdults, day);
      else patient = drawFromPool(c.id === 4 ? poolKids : poolAll, day);
      if (!patient) continue;
      const hour = dow === 6 ? randInt(16, 20) : randInt(15, 23);
      const start = day + hour * 3600000 + pick([0, 15, 30, 45]) * 60000;
      let booked;
      if (vt === 'urgent care') booked = start - randInt(20, 26 * 60) * 60000;
      else if (vt === 'vaccination') booked = start - randInt(0, 10) * DAY - randInt(30, 600) * 60000;
      else booked = start - Math.floor(-Math.log(1 - rand()) * 14) * DAY - randInt(60, 1400) * 60000;
      if (booked >= NOW) continue;
      let status;
      if (start >= NOW) status = 'scheduled';
      else {
        let noShow = vt === 'telehealth' ? 0.035 : 0.08;
        if (patient.plan === null) noShow *= 1.9;
        const lead = (start - booked) / DAY;
        const cancel = 0.07 + Math.min(0.12, lead * 0.004);
        status = pickWeighted([['no_show', noShow], ['cancelled', cancel], ['completed', 1 - noShow - cancel]]);
      }
      let duration = null;
      if (status === 'completed' && !chance(0.02)) {
        const [mu, sd] = DURATION[vt];
        duration = Math.max(5, Math.round(mu + sd * (rand() + rand() + rand() - 1.5) * 1.4));
      }
      appts.push({ start, booked, patient, prov, clinic: c.id, vt, status, duration });
    }
  }
}
appts.sort((a, b) => a.start - b.start || a.booked - b.booked);
appts.forEach((a, i) => { a.id = i + 1; });

// procedure lines for completed visits
for (const a of appts) {
  if (a.status !== 'completed') continue;
  const L = new Map();
  const add = (code, qty = 1) => L.set(code, (L.get(code) || 0) + qty);
  const age = ageAt(a.patient, a.start);
  const labs = () => { add('36415'); add('80053'); if (chance(0.6)) add('85025'); };
  switch (a.vt) {
    case 'new patient': add(chance(0.7) ? '99203' : '99204'); if (chance(0.4)) labs(); break;
    case 'follow-up': add(chance(0.65) ? '99213' : '99214'); if (chance(0.25)) labs(); break;
    case 'annual physical':
      add(age < 5 ? '99392' : age < 12 ? '99393' : age < 18 ? '99394' : age < 40 ? '99395' : age < 65 ? '99396' : '99397');
      if (age >= 18 && chance(0.7)) labs();
      if (age < 18 && chance(0.6)) { add('90471', 2); add(age >= 11 && chance(0.4) ? '90651' : '90715'); add('90686'); }
      else if (isFluSeason(a.start) && chance(0.5)) { add('90471'); add('90686'); }
      break;
    case 'urgent care':
      add(chance(0.55) ? '99213' : '99214');
      if (chance(0.2)) add('87880');
      if (isFluSeason(a.start) && chance(0.35)) add('87804');
      if (chance(0.06)) add('12001');
      if (chance(0.04)) add('29125');
      if (chance(0.08)) add(chance(0.5) ? '73560' : '73030');
      if (chance(0.1)) add('81002');
      break;
    case 'telehealth': add(chance(0.6) ? '99421' : '99422'); break;
    case 'vaccination': {
      const shots = isFluSeason(a.start) ? pickWeighted([[['90686'], 6], [['90715'], 1], [['90686', '90715'], 1]])
        : pickWeighted([[['90715'], 3], [['90651'], age < 27 ? 2 : 0.2], [['90686'], 0.5]]);
      add('90471', shots.length); shots.forEach((s) => add(s));
      break;
    }
  }
  if (a.vt !== 'telehealth') {
    switch (a.prov.specialty) {
      case 'Cardiology': if (chance(0.6)) add('93000'); if (chance(0.15)) add('93306'); break;
      case 'Dermatology': if (chance(0.25)) add('11102'); if (chance(0.2)) add('17110'); break;
      case 'Orthopedics': if (chance(0.3)) add('20610', chance(0.15) ? 2 : 1); if (chance(0.4)) add(chance(0.5) ? '73560' : '73030', chance(0.1) ? 2 : 1); break;
      case 'Obstetrics & Gynecology': if (chance(0.25)) add('76805'); if (chance(0.1)) add('59025'); if (chance(0.4)) add('81002'); break;
      default: if (chance(0.05)) add('96372');
    }
  }
  a.lines = [...L.entries()];
  for (const [code, qty] of a.lines) lines.push({ appt: a.id, code, qty });
}

// ---------- invoices ----------
const invoices = [];
for (const a of appts) {
  if (a.status !== 'completed') continue;
  const issued = floorDay(a.start) + randInt(1, 6) * DAY;
  if (issued > floorDay(NOW)) continue; // not issued yet
  if (chance(0.015)) continue;           // billing backlog: completed but never invoiced
  let billed = 0;
  for (const [code, qty] of a.lines) billed += price[code] * qty;
  const plan = a.patient.plan === null ? null : plans[a.patient.plan - 1];
  const insurer = plan ? Math.round((billed * plan.coverage) / 100) : 0;
  const patientShare = billed - insurer;
  let paid = issued + (plan ? randInt(12, 65) : randInt(3, 45)) * DAY;
  if (chance(plan ? 0.035 : 0.13)) paid = null; // never settled
  if (paid !== null && paid > floorDay(NOW)) paid = null; // not settled yet
  invoices.push({ appt: a.id, issued, billed, insurer, patientShare, paid });
}
invoices.forEach((v, i) => { v.id = 10001 + i; });

// patients registered no later than their first booking
const firstBooked = new Map();
for (const a of appts) {
  const cur = firstBooked.get(a.patient.id);
  if (cur === undefined || a.booked < cur) firstBooked.set(a.patient.id, a.booked);
}
for (const p of patients) {
  const fb = firstBooked.get(p.id);
  if (fb !== undefined && floorDay(fb) < p.registered) p.registered = floorDay(fb) - randInt(0, 10) * DAY;
}

// ---------- emit SQL ----------
const out = [];
out.push(`-- Clinic evaluation set: generated by generate.mjs (deterministic). Do not edit by hand.
-- "now" for this set is 2025-12-10T15:00:00Z.
CREATE SCHEMA clinic;

CREATE TABLE clinic.clinics (
  clinic_id   integer PRIMARY KEY,
  clinic_name text NOT NULL,
  city        text NOT NULL,
  opened_on   date NOT NULL
);

CREATE TABLE clinic.providers (
  provider_id integer PRIMARY KEY,
  clinic_id   integer NOT NULL REFERENCES clinic.clinics (clinic_id),
  full_name   text NOT NULL,
  role        text NOT NULL CHECK (role IN ('doctor', 'nurse')),
  specialty   text,
  hire_date   date NOT NULL,
  left_on     date
);

CREATE TABLE clinic.insurance_plans (
  plan_id      integer PRIMARY KEY,
  plan_name    text NOT NULL,
  insurer      text NOT NULL,
  plan_type    text NOT NULL,
  coverage_pct integer NOT NULL
);

CREATE TABLE clinic.patients (
  patient_id    integer PRIMARY KEY,
  full_name     text NOT NULL,
  date_of_birth date NOT NULL,
  sex           char(1),
  city          text,
  plan_id       integer REFERENCES clinic.insurance_plans (plan_id),
  registered_on date NOT NULL
);

CREATE TABLE clinic.appointments (
  appointment_id   integer PRIMARY KEY,
  patient_id       integer NOT NULL REFERENCES clinic.patients (patient_id),
  provider_id      integer NOT NULL REFERENCES clinic.providers (provider_id),
  clinic_id        integer NOT NULL REFERENCES clinic.clinics (clinic_id),
  booked_at        timestamptz NOT NULL,
  scheduled_start  timestamptz NOT NULL,
  status           text NOT NULL CHECK (status IN ('scheduled', 'completed', 'cancelled', 'no_show')),
  visit_type       text NOT NULL,
  duration_minutes integer
);

CREATE TABLE clinic.procedures (
  procedure_code text PRIMARY KEY,
  description    text NOT NULL,
  category       text NOT NULL,
  list_price     numeric(10,2) NOT NULL
);

CREATE TABLE clinic.appointment_procedures (
  appointment_id integer NOT NULL REFERENCES clinic.appointments (appointment_id),
  procedure_code text NOT NULL REFERENCES clinic.procedures (procedure_code),
  quantity       integer NOT NULL DEFAULT 1,
  PRIMARY KEY (appointment_id, procedure_code)
);

CREATE TABLE clinic.invoices (
  invoice_id     integer PRIMARY KEY,
  appointment_id integer NOT NULL UNIQUE REFERENCES clinic.appointments (appointment_id),
  issued_on      date NOT NULL,
  billed_amount  numeric(10,2) NOT NULL,
  insurer_share  numeric(10,2) NOT NULL,
  patient_share  numeric(10,2) NOT NULL,
  paid_date      date
);

COMMENT ON COLUMN clinic.providers.left_on IS 'Last day of employment; NULL while the provider still works here';
COMMENT ON COLUMN clinic.patients.plan_id IS 'Current insurance plan; NULL = uninsured (self-pay)';
COMMENT ON COLUMN clinic.patients.sex IS 'F or M; NULL when not recorded';
COMMENT ON COLUMN clinic.insurance_plans.coverage_pct IS 'Percent of the billed amount the insurer pays';
COMMENT ON COLUMN clinic.appointments.booked_at IS 'When the appointment was booked (created)';
COMMENT ON COLUMN clinic.appointments.scheduled_start IS 'When the visit is/was scheduled to start';
COMMENT ON COLUMN clinic.appointments.status IS 'scheduled (future), completed, cancelled, or no_show (patient did not come)';
COMMENT ON COLUMN clinic.appointments.duration_minutes IS 'Actual visit length in minutes; NULL unless the visit was completed (and occasionally missing)';
COMMENT ON COLUMN clinic.procedures.list_price IS 'Standard charge per unit in USD';
COMMENT ON COLUMN clinic.appointment_procedures.quantity IS 'Units of the procedure performed at the visit';
COMMENT ON COLUMN clinic.invoices.billed_amount IS 'Total charge in USD: sum of quantity x list price of the visit procedures';
COMMENT ON COLUMN clinic.invoices.insurer_share IS 'Part of billed_amount owed by the insurance plan (0 for uninsured patients)';
COMMENT ON COLUMN clinic.invoices.patient_share IS 'Part of billed_amount owed by the patient (copay/coinsurance or self-pay)';
COMMENT ON COLUMN clinic.invoices.paid_date IS 'Date the invoice was settled in full; NULL = still unpaid';
`);

function inserts(table, cols, rows) {
  for (let i = 0; i < rows.length; i += 500) {
    out.push(`INSERT INTO clinic.${table} (${cols.join(', ')}) VALUES\n` +
      rows.slice(i, i + 500).map((r) => `(${r.join(', ')})`).join(',\n') + ';\n');
  }
}
inserts('clinics', ['clinic_id', 'clinic_name', 'city', 'opened_on'],
  clinics.map((c) => [c.id, q(c.name), q(c.city), q(isoDate(c.opened))]));
inserts('providers', ['provider_id', 'clinic_id', 'full_name', 'role', 'specialty', 'hire_date', 'left_on'],
  providers.map((p) => [p.id, p.clinic, q(p.name), q(p.role), q(p.specialty), q(isoDate(p.hire)), q(p.left && isoDate(p.left))]));
inserts('insurance_plans', ['plan_id', 'plan_name', 'insurer', 'plan_type', 'coverage_pct'],
  plans.map((p) => [p.id, q(p.name), q(p.insurer), q(p.type), p.coverage]));
inserts('patients', ['patient_id', 'full_name', 'date_of_birth', 'sex', 'city', 'plan_id', 'registered_on'],
  patients.map((p) => [p.id, q(p.name), q(isoDate(p.dob)), q(p.sex), q(p.city), n(p.plan), q(isoDate(p.registered))]));
inserts('procedures', ['procedure_code', 'description', 'category', 'list_price'],
  procedures.map(([c, desc, cat, p]) => [q(c), q(desc), q(cat), money(p)]));
inserts('appointments', ['appointment_id', 'patient_id', 'provider_id', 'clinic_id', 'booked_at', 'scheduled_start', 'status', 'visit_type', 'duration_minutes'],
  appts.map((a) => [a.id, a.patient.id, a.prov.id, a.clinic, q(isoTs(a.booked)), q(isoTs(a.start)), q(a.status), q(a.vt), n(a.duration)]));
inserts('appointment_procedures', ['appointment_id', 'procedure_code', 'quantity'],
  lines.map((l) => [l.appt, q(l.code), l.qty]));
inserts('invoices', ['invoice_id', 'appointment_id', 'issued_on', 'billed_amount', 'insurer_share', 'patient_share', 'paid_date'],
  invoices.map((v) => [v.id, v.appt, q(isoDate(v.issued)), money(v.billed), money(v.insurer), money(v.patientShare), q(v.paid && isoDate(v.paid))]));

writeFileSync(OUT, out.join('\n'));
const total = clinics.length + providers.length + plans.length + patients.length + procedures.length + appts.length + lines.length + invoices.length;
console.log(`clinics ${clinics.length}, providers ${providers.length}, insurance_plans ${plans.length}, patients ${patients.length}, ` +
  `procedures ${procedures.length}, appointments ${appts.length}, appointment_procedures ${lines.length}, invoices ${invoices.length}; total ${total}`);
