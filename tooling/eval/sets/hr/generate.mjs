// Deterministic generator for the "hr" evaluation set.
// Usage: node generate.mjs   (writes schema.sql next to this file)
// Plain Node ESM, no dependencies, seeded PRNG, no wall-clock time.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

// ---------- seeded PRNG ----------
function mulberry32(a) {
  return function () {
    a |= 0; a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = mulberry32(20250930);
const randInt = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const pick = (arr) => arr[Math.floor(rand() * arr.length)];
function weighted(pairs) {
  const total = pairs.reduce((s, [, w]) => s + w, 0);
  let r = rand() * total;
  for (const [v, w] of pairs) { if ((r -= w) < 0) return v; }
  return pairs[pairs.length - 1][0];
}
function gauss() {
  let u = 0, v = 0;
  while (u === 0) u = rand();
  while (v === 0) v = rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

// ---------- dates as UTC day numbers ----------
const DAY = 86400000;
const dnum = (s) => Math.floor(Date.parse(s + 'T00:00:00Z') / DAY);
const dstr = (n) => new Date(n * DAY).toISOString().slice(0, 10);
const dow = (n) => new Date(n * DAY).getUTCDay(); // 0 Sun .. 6 Sat
const isWeekday = (n) => dow(n) >= 1 && dow(n) <= 5;
const nextWeekday = (n) => { while (!isWeekday(n)) n++; return n; };
function addWeekdays(start, count) { // returns end day so that [start,end] holds `count` weekdays
  let n = start, c = 1;
  while (c < count) { n++; if (isWeekday(n)) c++; }
  return n;
}
const NOW = dnum('2025-09-30');
const WINDOW_START = dnum('2023-10-01');

// ---------- reference data ----------
const offices = [
  { id: 1, city: 'New York', country: 'United States', currency: 'USD', opened: '2014-03-01' },
  { id: 2, city: 'Austin', country: 'United States', currency: 'USD', opened: '2018-06-15' },
  { id: 3, city: 'San Francisco', country: 'United States', currency: 'USD', opened: '2016-09-01' },
  { id: 4, city: 'London', country: 'United Kingdom', currency: 'GBP', opened: '2019-02-01' },
  { id: 5, city: 'Berlin', country: 'Germany', currency: 'EUR', opened: '2021-05-03' },
  { id: 6, city: 'Lisbon', country: 'Portugal', currency: 'EUR', opened: '2025-09-01' }, // no staff yet
];
const fx = { USD: 1, GBP: 0.79, EUR: 0.92 };

// departments: id, name, parent, size, titles [title, weight, baseSalaryUSD], head title
const departments = [
  { id: 1, name: 'Executive Office', parent: null, size: 0, head: ['Chief Executive Officer', 360000] },
  { id: 2, name: 'Engineering', parent: null, size: 0, head: ['VP of Engineering', 290000] },
  { id: 3, name: 'Product Engineering', parent: 2, size: 88, head: ['Director of Product Engineering', 235000],
    titles: [['Software Engineer', 40, 135000], ['Senior Software Engineer', 30, 172000], ['Staff Software Engineer', 8, 208000], ['Engineering Manager', 6, 198000], ['QA Engineer', 8, 112000]] },
  { id: 4, name: 'Platform Engineering', parent: 2, size: 44, head: ['Director of Platform Engineering', 240000],
    titles: [['Software Engineer', 30, 138000], ['Senior Software Engineer', 30, 176000], ['Staff Software Engineer', 8, 212000], ['Engineering Manager', 5, 200000]] },
  { id: 5, name: 'Data & Analytics', parent: 2, size: 24, head: ['Head of Data', 220000],
    titles: [['Data Analyst', 30, 98000], ['Data Engineer', 25, 148000], ['Senior Data Scientist', 12, 182000], ['Data Scientist', 15, 150000]] },
  { id: 6, name: 'Site Reliability', parent: 2, size: 14, head: ['Head of Site Reliability', 215000],
    titles: [['Site Reliability Engineer', 60, 160000], ['Senior Site Reliability Engineer', 30, 188000]] },
  { id: 7, name: 'Sales', parent: null, size: 0, head: ['VP of Sales', 270000] },
  { id: 8, name: 'Enterprise Sales', parent: 7, size: 38, head: ['Director of Enterprise Sales', 210000],
    titles: [['Account Executive', 45, 118000], ['Senior Account Executive', 25, 152000], ['Sales Engineer', 15, 145000], ['Sales Manager', 6, 170000]] },
  { id: 9, name: 'Sales Development', parent: 7, size: 29, head: ['Sales Development Manager', 135000],
    titles: [['Sales Development Representative', 80, 68000], ['Senior Sales Development Representative', 20, 82000]] },
  { id: 10, name: 'Marketing', parent: null, size: 27, head: ['VP of Marketing', 245000],
    titles: [['Marketing Manager', 25, 118000], ['Content Strategist', 20, 92000], ['Product Marketing Manager', 20, 135000], ['Growth Marketer', 20, 105000], ['Graphic Designer', 10, 85000]] },
  { id: 11, name: 'Customer Success', parent: null, size: 33, head: ['VP of Customer Success', 230000],
    titles: [['Customer Success Manager', 60, 96000], ['Senior Customer Success Manager', 25, 118000], ['Implementation Specialist', 15, 88000]] },
  { id: 12, name: 'Customer Support', parent: 11, size: 46, head: ['Head of Support', 150000],
    titles: [['Support Specialist', 65, 58000], ['Senior Support Specialist', 25, 72000], ['Support Team Lead', 10, 88000]] },
  { id: 13, name: 'Product Management', parent: null, size: 17, head: ['VP of Product', 265000],
    titles: [['Product Manager', 55, 160000], ['Senior Product Manager', 35, 188000], ['Associate Product Manager', 10, 110000]] },
  { id: 14, name: 'Product Design', parent: 13, size: 13, head: ['Head of Design', 205000],
    titles: [['Product Designer', 55, 128000], ['Senior Product Designer', 35, 158000], ['UX Researcher', 10, 125000]] },
  { id: 15, name: 'People Operations', parent: null, size: 11, head: ['VP of People', 225000],
    titles: [['HR Business Partner', 35, 112000], ['Recruiter', 40, 92000], ['People Operations Coordinator', 25, 68000]] },
  { id: 16, name: 'Finance & Legal', parent: null, size: 14, head: ['Chief Financial Officer', 310000],
    titles: [['Financial Analyst', 40, 105000], ['Senior Accountant', 25, 112000], ['Corporate Counsel', 15, 205000], ['Payroll Specialist', 20, 78000]] },
  { id: 17, name: 'Corporate Development', parent: null, size: 0, head: null, created: true }, // new, nobody yet
];

const femaleNames = ['Mary','Patricia','Jennifer','Linda','Elizabeth','Barbara','Susan','Jessica','Sarah','Karen','Lisa','Nancy','Sandra','Ashley','Emily','Michelle','Amanda','Melissa','Stephanie','Rebecca','Laura','Hannah','Olivia','Chloe','Priya','Mei','Yuki','Fatima','Aisha','Sofia','Isabella','Ava','Emma','Mia','Zoe','Elena','Giulia','Lena','Anna','Clara','Niamh','Siobhan','Harriet','Ananya','Amara','Ingrid','Valentina','Grace','Leah','Nora','Maya'];
const maleNames = ['James','Robert','John','Michael','David','William','Richard','Joseph','Thomas','Charles','Christopher','Daniel','Matthew','Anthony','Mark','Donald','Steven','Andrew','Joshua','Kevin','Brian','George','Timothy','Ryan','Jacob','Arjun','Wei','Hiroshi','Omar','Mateo','Lucas','Noah','Liam','Ethan','Aiden','Marco','Lukas','Jonas','Felix','Declan','Oliver','Rohan','Kwame','Tobias','Diego','Samuel','Nathan','Isaac','Adrian'];
const lastNames = ['Smith','Johnson','Williams','Brown','Jones','Garcia','Miller','Davis','Rodriguez','Martinez','Hernandez','Lopez','Gonzalez','Wilson','Anderson','Thomas','Taylor','Moore','Jackson','Martin','Lee','Perez','Thompson','White','Harris','Sanchez','Clark','Ramirez','Lewis','Robinson','Walker','Young','Allen','King','Wright','Scott','Torres','Nguyen','Hill','Flores','Green','Adams','Nelson','Baker','Hall','Rivera','Campbell','Mitchell','Carter','Roberts','Patel','Shah','Chen','Wang','Kim','Park','Tanaka','Sato','Okafor','Mensah','Müller','Schmidt','Schneider','Fischer','Weber','Becker','Hoffmann','Rossi','Bianchi','Silva','Costa','Murphy','Kelly','Byrne','O\'Brien','Walsh','Evans','Hughes','Khan','Ali','Novak','Kowalski','Larsen','Nilsson','Dubois','Moreau','Fernandes','Ivanova','Cohen','Reyes'];

// ---------- employees ----------
const employees = [];
const usedNames = new Set();
function makeName() {
  for (;;) {
    const g = rand() < 0.47 ? 'Female' : 'Male';
    const n = `${pick(g === 'Female' ? femaleNames : maleNames)} ${pick(lastNames)}`;
    if (!usedNames.has(n)) { usedNames.add(n); return [n, g]; }
  }
}
function emailFor(name) {
  const base = name.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/ü/g, 'u').replace(/'/g, '').replace(/ /g, '.');
  return `${base}@brightline.io`;
}
function genderFor(g) {
  return weighted([[g, 93], ['Non-binary', 2.5], [null, 4.5]]);
}
function officeFor(dept, hire) {
  // Berlin only from 2021, London from 2019, Austin from 2018
  for (;;) {
    const o = weighted([[1, 34], [2, 18], [3, 16], [4, 12], [5, 8], [null, 12]]);
    if (o === null) return null;
    const off = offices[o - 1];
    if (dnum(off.opened) <= hire) return o;
  }
}
function hireDate(senior) {
  // growth: more hiring recently. Year weights.
  const yr = senior
    ? weighted([[2016, 3], [2017, 3], [2018, 3], [2019, 3], [2020, 2], [2021, 3], [2022, 2], [2023, 1], [2024, 1]])
    : weighted([[2016, 1], [2017, 1.5], [2018, 2], [2019, 3], [2020, 3], [2021, 6], [2022, 8], [2023, 9], [2024, 13], [2025, 9]]);
  const start = dnum(`${yr}-01-01`);
  const end = yr === 2025 ? NOW - 1 : dnum(`${yr}-12-31`);
  const d = nextWeekday(randInt(start, end));
  return d > NOW ? NOW - 3 : d;
}

let nextId = 1001;
function addEmployee({ name, g, dept, title, base, manager, hire, type, office, senior }) {
  if (!name) [name, g] = makeName();
  else usedNames.add(name);
  const e = {
    id: nextId++, name, dept, title, base, manager,
    hire: hire ?? hireDate(senior), type: type ?? 'Full-time', gender: genderFor(g),
    term: null, talent: gauss(),
  };
  e.office = office !== undefined ? office : officeFor(dept, e.hire);
  e.email = emailFor(e.name);
  employees.push(e);
  return e;
}

// CEO & execs
const ceo = addEmployee({ name: 'Margaret Okonkwo', g: 'Female', dept: 1, title: 'Chief Executive Officer', base: 360000, manager: null, hire: dnum('2014-03-03'), office: 1 });
const heads = {};
heads[1] = ceo;
addEmployee({ name: 'Daniel Reyes-Whitfield', g: 'Male', dept: 1, title: 'Chief Operating Officer', base: 320000, manager: ceo.id, hire: dnum('2015-01-12'), office: 1 });
addEmployee({ name: 'Claire Donnelly', g: 'Female', dept: 1, title: 'Executive Assistant', base: 82000, manager: ceo.id, hire: dnum('2019-04-08'), office: 1 });
addEmployee({ name: 'Samuel Osei', g: 'Male', dept: 1, title: 'Chief of Staff', base: 195000, manager: ceo.id, hire: dnum('2022-02-14'), office: 1 });

// heads in department order (parents first)
for (const d of departments) {
  if (d.id === 1 || !d.head) continue;
  const mgr = d.parent ? heads[d.parent] : ceo;
  const h = addEmployee({ dept: d.id, title: d.head[0], base: d.head[1], manager: mgr.id, senior: true });
  if (h.hire < dnum('2016-01-01')) h.hire = dnum('2016-01-11');
  if (h.office === null && rand() < 0.7) h.office = 1;
  heads[d.id] = h;
}
// staff
for (const d of departments) {
  if (!d.titles) continue;
  const team = [];
  for (let i = 0; i < d.size; i++) {
    const [title, , base] = weighted(d.titles.map((t) => [t, t[1]]));
    const type = d.id === 12 ? weighted([['Full-time', 72], ['Part-time', 18], ['Contractor', 10]])
      : d.id === 3 || d.id === 4 || d.id === 14 || d.id === 10 ? weighted([['Full-time', 84], ['Part-time', 3], ['Contractor', 13]])
      : weighted([['Full-time', 90], ['Part-time', 6], ['Contractor', 4]]);
    const isMgr = /Manager$|Team Lead$/.test(title) && !/Product Manager|Marketing Manager|Success Manager|Associate/.test(title);
    const e = addEmployee({ dept: d.id, title, base, manager: heads[d.id].id, type: isMgr ? 'Full-time' : type });
    if (e.hire < heads[d.id].hire && rand() < 0.6) e.hire = nextWeekday(heads[d.id].hire + randInt(20, 400));
    if (e.hire > NOW) e.hire = NOW - 3;
    team.push(e);
  }
  // engineering/support managers take over some reports
  const mgrs = team.filter((e) => /Engineering Manager|Sales Manager|Support Team Lead/.test(e.title));
  if (mgrs.length) {
    for (const e of team) {
      if (mgrs.includes(e)) continue;
      if (rand() < 0.75) e.manager = pick(mgrs).id;
    }
  }
}

// terminations (only within the two-year window, never in the future)
for (const e of employees) {
  if (e.dept === 1) continue;
  const isHead = Object.values(heads).includes(e);
  const p = e.type === 'Contractor' ? 0.35 : e.dept === 12 || e.dept === 9 ? 0.22 : isHead ? 0.04 : 0.11;
  if (rand() < p) {
    const lo = Math.max(WINDOW_START, e.hire + 45);
    if (lo >= NOW - 2) continue;
    let t = randInt(lo, NOW - 2);
    while (!isWeekday(t)) t--;
    if (t < lo) continue;
    e.term = t;
  }
}
// a departed manager's reports: move them to the department head
const byId = new Map(employees.map((e) => [e.id, e]));
for (const e of employees) {
  const m = e.manager ? byId.get(e.manager) : null;
  if (m && m.term !== null && e.term === null) e.manager = heads[e.dept]?.id ?? ceo.id;
}

// ---------- salary history ----------
const salaries = [];
let salId = 1;
const MIGRATION = dnum('2023-01-01');
function round2(x) { return Math.round(x * 100) / 100; }
function roundSalary(x, cur) { return cur === 'USD' ? Math.round(x / 500) * 500 : round2(Math.round(x / 250) * 250); }
for (const e of employees) {
  if (e.type === 'Contractor') { e.salary = null; continue; }
  const cur = e.office ? offices[e.office - 1].currency : 'USD';
  e.currency = cur;
  let s = e.base * (1 + 0.08 * gauss()) * fx[cur] * (e.type === 'Part-time' ? 0.55 : 1);
  if (e.office === 2) s *= 0.93; // Austin pay band
  const first = Math.max(e.hire, MIGRATION);
  salaries.push({ id: salId++, emp: e.id, date: first, amount: roundSalary(s, cur), cur, reason: e.hire < MIGRATION ? 'Migrated Record' : 'New Hire' });
  const events = [];
  for (const yr of [2024, 2025]) {
    const d = dnum(`${yr}-04-01`);
    if (d - first > 120 && (e.term === null || e.term > d) && rand() < 0.86) events.push([d, 'Annual Review']);
  }
  if (rand() < 0.12) {
    const d = nextWeekday(randInt(first + 200, NOW - 5));
    if (d < NOW && (e.term === null || e.term > d) && !events.some(([x]) => Math.abs(x - d) < 40)) events.push([d, 'Promotion']);
  }
  if (cur !== 'USD' && rand() < 0.08) {
    const d = dnum('2024-10-01');
    if (d > first && (e.term === null || e.term > d)) events.push([d, 'Market Adjustment']);
  }
  events.sort((a, b) => a[0] - b[0]);
  for (const [d, reason] of events) {
    const pct = reason === 'Promotion' ? 0.10 + rand() * 0.08 : reason === 'Market Adjustment' ? 0.05 + rand() * 0.04
      : Math.max(0, 0.03 + 0.012 * e.talent + 0.01 * gauss());
    s = s * (1 + pct);
    salaries.push({ id: salId++, emp: e.id, date: d, amount: roundSalary(s, cur), cur, reason });
  }
}

// ---------- leave requests ----------
const leaves = [];
let leaveId = 1;
const LEAVE_END = dnum('2025-12-31');
function addLeave(e, type, start, days, status, requested) {
  const whole = Math.ceil(days);
  const end = addWeekdays(start, whole);
  leaves.push({ id: leaveId++, emp: e.id, type, start, end, days, status, requested });
}
function statusFor(start, type) {
  if (start > NOW) return weighted([['Pending', 65], ['Approved', 32], ['Rejected', 3]]);
  if (type === 'Sick Leave') return weighted([['Approved', 95], ['Rejected', 2], ['Pending', 3]]);
  if (type === 'Parental Leave') return 'Approved';
  if (start > NOW - 14) return weighted([['Approved', 70], ['Pending', 22], ['Rejected', 8]]);
  return weighted([['Approved', 84], ['Rejected', 13], ['Pending', 3]]);
}
const secs = () => `${String(randInt(7, 19)).padStart(2, '0')}:${String(randInt(0, 59)).padStart(2, '0')}:${String(randInt(0, 59)).padStart(2, '0')}`;
for (const e of employees) {
  if (e.type === 'Contractor') continue;
  const from = Math.max(WINDOW_START, e.hire + 30);
  const to = e.term !== null ? e.term - 5 : LEAVE_END;
  if (to <= from) continue;
  const years = (to - from) / 365;
  const vacRate = (e.type === 'Part-time' ? 1.6 : 2.6) * (0.5 + rand());
  const sickRate = Math.max(0, 1.1 * Math.exp(0.7 * gauss()));
  const nVac = Math.round(vacRate * years + (rand() - 0.5));
  const nSick = Math.round(sickRate * years * (rand() < 0.25 ? 0 : 1));
  for (let i = 0; i < nVac; i++) {
    let start = nextWeekday(randInt(from, to));
    if (start > LEAVE_END) continue;
    if (start > NOW && rand() < 0.6) continue; // future requests are fewer
    const days = weighted([[1, 10], [2, 10], [3, 12], [4, 8], [5, 25], [8, 6], [10, 12], [15, 3]]);
    const requested = start - randInt(5, 60);
    addLeave(e, 'Vacation', start, days, statusFor(start, 'Vacation'), requested);
  }
  for (let i = 0; i < nSick; i++) {
    const start = nextWeekday(randInt(from, Math.min(to, NOW - 1)));
    if (start > NOW) continue;
    const days = weighted([[0.5, 10], [1, 40], [2, 22], [3, 12], [4, 5], [5, 6], [10, 2]]);
    addLeave(e, 'Sick Leave', start, days, statusFor(start, 'Sick Leave'), start);
  }
  if (e.type === 'Full-time' && rand() < 0.05) {
    const start = nextWeekday(randInt(from, Math.min(to, NOW + 60)));
    const days = e.gender === 'Female' ? weighted([[60, 3], [80, 3], [120, 2]]) : weighted([[10, 3], [20, 4], [40, 1]]);
    addLeave(e, 'Parental Leave', start, days, statusFor(start, 'Parental Leave'), start - randInt(30, 120));
  }
  if (rand() < 0.03) {
    const start = nextWeekday(randInt(from, Math.min(to, NOW - 1)));
    addLeave(e, 'Bereavement Leave', start, weighted([[2, 1], [3, 2], [5, 1]]), 'Approved', start);
  }
}
leaves.sort((a, b) => a.requested - b.requested || a.emp - b.emp);
for (const l of leaves) if (l.requested >= NOW) l.requested = NOW - 1 - Math.floor(rand() * 20);
leaves.sort((a, b) => a.requested - b.requested || a.emp - b.emp);
leaves.forEach((l, i) => { l.id = i + 1; l.requestedAt = `${dstr(l.requested)}T${secs()}Z`; });

// ---------- performance reviews ----------
const periods = [
  { name: '2023 H2', start: dnum('2023-07-01'), end: dnum('2023-12-31') },
  { name: '2024 H1', start: dnum('2024-01-01'), end: dnum('2024-06-30') },
  { name: '2024 H2', start: dnum('2024-07-01'), end: dnum('2024-12-31') },
  { name: '2025 H1', start: dnum('2025-01-01'), end: dnum('2025-06-30') },
];
const reviews = [];
let reviewId = 1;
for (const p of periods) {
  for (const e of employees) {
    if (e.type === 'Contractor' || e.manager === null) continue;
    if (e.hire > p.end - 90) continue;
    const submitted = p.end + randInt(12, 50);
    if (e.term !== null && e.term < submitted) continue;
    if (rand() < 0.04) continue; // review skipped
    const x = 3.2 + 0.75 * e.talent + 0.55 * gauss();
    const rating = Math.min(5, Math.max(1, Math.round(x)));
    const m = byId.get(e.manager);
    const reviewer = m.hire <= submitted - 30 ? m.id : (heads[e.dept] && heads[e.dept] !== e && heads[e.dept].hire <= submitted ? heads[e.dept].id : ceo.id);
    reviews.push({ id: reviewId++, emp: e.id, period: p.name, pstart: p.start, pend: p.end, rating, reviewer, submitted: `${dstr(submitted)}T${secs()}Z` });
  }
}

// ---------- SQL ----------
const q = (v) => (v === null || v === undefined ? 'NULL' : typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
const qd = (n) => (n === null || n === undefined ? 'NULL' : `'${dstr(n)}'`);
function inserts(table, cols, rows) {
  const out = [];
  for (let i = 0; i < rows.length; i += 200) {
    out.push(`INSERT INTO hr.${table} (${cols.join(', ')}) VALUES\n` + rows.slice(i, i + 200).map((r) => `(${r.join(', ')})`).join(',\n') + ';');
  }
  return out.join('\n');
}

const sql = [];
sql.push(`-- HR evaluation set: generated by generate.mjs (deterministic). Do not edit by hand.
CREATE SCHEMA hr;

CREATE TABLE hr.offices (
  office_id integer PRIMARY KEY,
  city text NOT NULL UNIQUE,
  country text NOT NULL,
  opened_on date NOT NULL
);

CREATE TABLE hr.departments (
  department_id integer PRIMARY KEY,
  name text NOT NULL UNIQUE,
  parent_department_id integer REFERENCES hr.departments(department_id)
);

CREATE TABLE hr.employees (
  employee_id integer PRIMARY KEY,
  full_name text NOT NULL,
  email text NOT NULL UNIQUE,
  department_id integer NOT NULL REFERENCES hr.departments(department_id),
  manager_id integer REFERENCES hr.employees(employee_id),
  job_title text NOT NULL,
  hire_date date NOT NULL,
  termination_date date,
  employment_type text NOT NULL CHECK (employment_type IN ('Full-time', 'Part-time', 'Contractor')),
  gender text,
  office_id integer REFERENCES hr.offices(office_id)
);
COMMENT ON COLUMN hr.employees.office_id IS 'NULL = fully remote';
COMMENT ON COLUMN hr.employees.termination_date IS 'last working day; NULL = still employed';

CREATE TABLE hr.salary_history (
  salary_id integer PRIMARY KEY,
  employee_id integer NOT NULL REFERENCES hr.employees(employee_id),
  effective_date date NOT NULL,
  annual_salary numeric(12,2) NOT NULL,
  currency text NOT NULL,
  change_reason text NOT NULL
);
COMMENT ON TABLE hr.salary_history IS 'base pay of employees on payroll (contractors are paid by invoice and have no rows); records before 2023 were consolidated into one Migrated Record dated 2023-01-01';

CREATE TABLE hr.leave_requests (
  leave_request_id integer PRIMARY KEY,
  employee_id integer NOT NULL REFERENCES hr.employees(employee_id),
  leave_type text NOT NULL,
  start_date date NOT NULL,
  end_date date NOT NULL,
  days numeric(5,1) NOT NULL,
  status text NOT NULL CHECK (status IN ('Approved', 'Pending', 'Rejected')),
  requested_at timestamptz NOT NULL
);
COMMENT ON COLUMN hr.leave_requests.days IS 'working days requested (half days allowed)';

CREATE TABLE hr.performance_reviews (
  review_id integer PRIMARY KEY,
  employee_id integer NOT NULL REFERENCES hr.employees(employee_id),
  review_period text NOT NULL,
  period_start date NOT NULL,
  period_end date NOT NULL,
  rating smallint NOT NULL CHECK (rating BETWEEN 1 AND 5),
  reviewer_id integer REFERENCES hr.employees(employee_id),
  submitted_at timestamptz NOT NULL
);
`);
sql.push(inserts('offices', ['office_id', 'city', 'country', 'opened_on'], offices.map((o) => [o.id, q(o.city), q(o.country), q(o.opened)])));
sql.push(inserts('departments', ['department_id', 'name', 'parent_department_id'], departments.map((d) => [d.id, q(d.name), q(d.parent)])));
// employees: insert managers before reports (ids are already in that order except for re-assigned managers, which are earlier ids or same dept)
const empRows = [...employees].sort((a, b) => a.id - b.id);
// verify ordering: every manager id must be smaller than the report id, otherwise insert in two passes
const needsUpdate = empRows.filter((e) => e.manager !== null && e.manager > e.id);
sql.push(inserts('employees', ['employee_id', 'full_name', 'email', 'department_id', 'manager_id', 'job_title', 'hire_date', 'termination_date', 'employment_type', 'gender', 'office_id'],
  empRows.map((e) => [e.id, q(e.name), q(e.email), e.dept, needsUpdate.includes(e) ? 'NULL' : q(e.manager), q(e.title), qd(e.hire), qd(e.term), q(e.type), q(e.gender), q(e.office)])));
for (const e of needsUpdate) sql.push(`UPDATE hr.employees SET manager_id = ${e.manager} WHERE employee_id = ${e.id};`);
sql.push(inserts('salary_history', ['salary_id', 'employee_id', 'effective_date', 'annual_salary', 'currency', 'change_reason'],
  salaries.map((s) => [s.id, s.emp, qd(s.date), s.amount.toFixed(2), q(s.cur), q(s.reason)])));
sql.push(inserts('leave_requests', ['leave_request_id', 'employee_id', 'leave_type', 'start_date', 'end_date', 'days', 'status', 'requested_at'],
  leaves.map((l) => [l.id, l.emp, q(l.type), qd(l.start), qd(l.end), l.days.toFixed(1), q(l.status), q(l.requestedAt)])));
sql.push(inserts('performance_reviews', ['review_id', 'employee_id', 'review_period', 'period_start', 'period_end', 'rating', 'reviewer_id', 'submitted_at'],
  reviews.map((r) => [r.id, r.emp, q(r.period), qd(r.pstart), qd(r.pend), r.rating, r.reviewer, q(r.submitted)])));

const text = sql.filter(Boolean).join('\n\n') + '\n';
writeFileSync(join(here, 'schema.sql'), text);
const counts = { offices: offices.length, departments: departments.length, employees: employees.length, salary_history: salaries.length, leave_requests: leaves.length, performance_reviews: reviews.length };
const total = Object.values(counts).reduce((a, b) => a + b, 0);
console.log(JSON.stringify({ ...counts, total, bytes: Buffer.byteLength(text) }));
