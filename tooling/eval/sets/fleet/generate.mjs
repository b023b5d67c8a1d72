// Deterministic generator for the "fleet" evaluation set.
// Plain Node ESM, no dependencies. Writes schema.sql next to this file.
// Run: node generate.mjs
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OUT = join(dirname(fileURLToPath(import.meta.url)), 'schema.sql');

// ---------- seeded PRNG ----------
function mulberry32(a) {
  return function () {
    a |= 0; a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = mulberry32(20251120);
const uni = (a, b) => a + (b - a) * rnd();
const int = (a, b) => Math.floor(uni(a, b + 1));
const pick = (arr) => arr[Math.floor(rnd() * arr.length)];
const chance = (p) => rnd() < p;
function wpick(items, weights) {
  const tot = weights.reduce((s, w) => s + w, 0);
  let r = rnd() * tot;
  for (let i = 0; i < items.length; i++) { r -= weights[i]; if (r < 0) return items[i]; }
  return items[items.length - 1];
}
function normal(mu, sd) {
  const u = 1 - rnd(), v = rnd();
  return mu + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
const lognormal = (median, sigma) => median * Math.exp(normal(0, sigma));
const round = (x, d) => Math.round(x * 10 ** d) / 10 ** d;

// ---------- time helpers (all UTC) ----------
const DAY = 86400000;
const NOW = Date.UTC(2025, 10, 20, 10, 0, 0); // 2025-11-20T10:00:00Z
const START = Date.UTC(2023, 10, 21);          // first day of trip history
const d = (s) => Date.parse(s + 'T00:00:00Z');
const fmtDate = (ms) => new Date(ms).toISOString().slice(0, 10);
const fmtTs = (ms) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ') + '+00';

// ---------- depots ----------
const depots = [
  { id: 1, name: 'Toronto Portlands', city: 'Toronto', region: 'Ontario', w: 16 },
  { id: 2, name: 'Mississauga West', city: 'Mississauga', region: 'Ontario', w: 12 },
  { id: 3, name: 'Ottawa ByWard', city: 'Ottawa', region: 'Ontario', w: 7 },
  { id: 4, name: 'Montreal Saint-Laurent', city: 'Montreal', region: 'Quebec', w: 11 },
  { id: 5, name: 'Laval Nord', city: 'Laval', region: 'Quebec', w: 5 },
  { id: 6, name: 'Vancouver Docks', city: 'Vancouver', region: 'British Columbia', w: 10 },
  { id: 7, name: 'Surrey Gateway', city: 'Surrey', region: 'British Columbia', w: 6 },
  { id: 8, name: 'Calgary Foothills', city: 'Calgary', region: 'Prairies', w: 8 },
  { id: 9, name: 'Winnipeg Exchange', city: 'Winnipeg', region: 'Prairies', w: 0 }, // opening soon: no vehicles
];

// ---------- vehicle catalogue ----------
const catalogue = [
  // type, fuel, make, model, price range, weight
  { type: 'van', fuel: 'diesel', make: 'Mercedes-Benz', model: 'Sprinter 2500', price: [62000, 78000], w: 14 },
  { type: 'van', fuel: 'gasoline', make: 'Ford', model: 'Transit 250', price: [48000, 61000], w: 16 },
  { type: 'van', fuel: 'gasoline', make: 'Ram', model: 'ProMaster 2500', price: [45000, 56000], w: 9 },
  { type: 'van', fuel: 'gasoline', make: 'Chevrolet', model: 'Express 2500', price: [44000, 52000], w: 4 },
  { type: 'van', fuel: 'electric', make: 'Ford', model: 'E-Transit', price: [68000, 82000], w: 7 },
  { type: 'van', fuel: 'electric', make: 'BrightDrop', model: 'Zevo 600', price: [95000, 112000], w: 4 },
  { type: 'van', fuel: 'electric', make: 'Mercedes-Benz', model: 'eSprinter', price: [88000, 99000], w: 2 },
  { type: 'truck', fuel: 'diesel', make: 'Isuzu', model: 'NPR-HD', price: [82000, 98000], w: 6 },
  { type: 'truck', fuel: 'diesel', make: 'Freightliner', model: 'M2 106', price: [128000, 158000], w: 3 },
  { type: 'truck', fuel: 'diesel', make: 'Hino', model: 'L6', price: [105000, 122000], w: 2 },
  { type: 'truck', fuel: 'electric', make: 'Freightliner', model: 'eM2', price: [265000, 289000], w: 1 },
  { type: 'car', fuel: 'hybrid', make: 'Toyota', model: 'Prius', price: [31000, 38000], w: 3 },
  { type: 'car', fuel: 'hybrid', make: 'Toyota', model: 'Corolla Hybrid', price: [27000, 31000], w: 2 },
  { type: 'car', fuel: 'gasoline', make: 'Honda', model: 'Civic', price: [26000, 32000], w: 1 },
  { type: 'e-bike', fuel: 'electric', make: 'Urban Arrow', model: 'Cargo XL', price: [9800, 11400], w: 5 },
  { type: 'e-bike', fuel: 'electric', make: 'Tern', model: 'GSD S10', price: [6900, 8200], w: 4 },
];

const LETTERS = 'ABCDEFGHJKLMNPRSTVWXYZ';
const L = (n) => Array.from({ length: n }, () => pick(LETTERS.split(''))).join('');
const D = (n) => Array.from({ length: n }, () => String(int(0, 9))).join('');
const platesUsed = new Set();
function plateFor(depot, type, seq) {
  let p;
  do {
    if (type === 'e-bike') p = `EB-${depot.city.slice(0, 3).toUpperCase()}-${String(seq).padStart(2, '0')}`;
    else if (depot.region === 'Ontario') p = `${L(4)} ${D(3)}`;
    else if (depot.region === 'Quebec') p = `${L(1)}${D(2)} ${L(3)}`;
    else if (depot.region === 'British Columbia') p = `${L(2)}${D(1)} ${D(2)}${L(1)}`;
    else p = `${L(3)}-${D(4)}`;
  } while (platesUsed.has(p));
  platesUsed.add(p);
  return p;
}

const vehicles = [];
let vid = 0;
let bikeSeq = 0;
for (const dep of depots) {
  for (let i = 0; i < dep.w; i++) {
    let c = wpick(catalogue, catalogue.map((x) => x.w));
    // Vancouver/Montreal/Toronto lean into e-bikes; suburban depots get no e-bikes
    if (c.type === 'e-bike' && ![1, 4, 6].includes(dep.id)) c = catalogue[1];
    if ([1, 4, 6].includes(dep.id) && i === 0) c = catalogue[14 + (dep.id % 2)];
    const year = c.fuel === 'electric' ? int(2020, 2025) : wpick([2016, 2017, 2018, 2019, 2020, 2021, 2022, 2023, 2024, 2025], [2, 3, 4, 5, 5, 6, 6, 5, 4, 2]);
    // in service from (no column: internal)
    let inService = Math.max(START - int(0, 400) * DAY, d(`${year}-0${int(1, 6)}-15`));
    if (year === 2025) inService = d(`2025-0${int(2, 9)}-${String(int(1, 28)).padStart(2, '0')}`);
    vid++;
    vehicles.push({
      id: vid, depot: dep, ...c, year,
      plate: plateFor(dep, c.type, c.type === 'e-bike' ? ++bikeSeq : 0),
      price: round(uni(c.price[0], c.price[1]), 2),
      inService, outOfService: null, status: 'active',
    });
  }
}
// a few brand-new vehicles delivered this month: no trips yet
for (const [depId, ci] of [[2, 4], [6, 5], [1, 1]]) {
  const dep = depots[depId - 1], c = catalogue[ci];
  vid++;
  vehicles.push({ id: vid, depot: dep, ...c, year: 2025, plate: plateFor(dep, c.type, 0),
    price: round(uni(c.price[0], c.price[1]), 2), inService: d('2025-11-21'), outOfService: null, status: 'active' });
}
// retired vehicles: oldest combustion vehicles stop running at some point
const oldies = vehicles.filter((v) => v.year <= 2018 && v.fuel !== 'electric');
for (const v of oldies.slice(0, 7)) { v.status = 'retired'; v.outOfService = START + int(120, 640) * DAY; }
// in maintenance: a handful of active vehicles
const inMaint = vehicles.filter((v) => v.status === 'active' && v.inService < d('2025-10-01'));
const maintIdx = [3, 11, 19, 30, 44, 57];
for (const i of maintIdx) inMaint[i].status = 'in maintenance';

// ---------- drivers ----------
const FIRST = ['Aaliyah', 'Adrien', 'Amara', 'Andre', 'Anika', 'Arjun', 'Beatriz', 'Benoit', 'Bianca', 'Caleb', 'Camille', 'Chen', 'Chloe', 'Darius', 'Deepa', 'Diego', 'Elena', 'Emeka', 'Emily', 'Farah', 'Felix', 'Gabriel', 'Grace', 'Hamza', 'Hana', 'Harpreet', 'Ines', 'Isaac', 'Jasmine', 'Jean-Luc', 'Jonah', 'Kai', 'Kavya', 'Liam', 'Lucia', 'Malik', 'Marc-Andre', 'Maya', 'Mei', 'Mohammed', 'Nadia', 'Noah', 'Olivia', 'Omar', 'Priya', 'Rafael', 'Rania', 'Ravi', 'Rosa', 'Samir', 'Sophie', 'Tariq', 'Thea', 'Tomas', 'Valentina', 'Victor', 'Wei', 'Yara', 'Yusuf', 'Zoe'];
const LAST = ['Ahmed', 'Bergeron', 'Bouchard', 'Campbell', 'Chan', 'Chowdhury', 'Costa', 'Dhillon', 'Dubois', 'Fernandes', 'Gagnon', 'Gill', 'Gomez', 'Grewal', 'Haddad', 'Ibrahim', 'Kaur', 'Kim', 'Lapointe', 'Leblanc', 'Li', 'MacDonald', 'Martin', 'Mensah', 'Morin', 'Nguyen', 'Novak', 'Okafor', 'Olsen', 'Patel', 'Pelletier', 'Reyes', 'Roy', 'Santos', 'Sharma', 'Singh', 'Sokolov', 'Tremblay', 'Wang', 'Wong', 'Yilmaz', 'Zhang'];
const namesUsed = new Set();
const drivers = [];
let did = 0;
const driverCounts = { 1: 21, 2: 15, 3: 9, 4: 14, 5: 6, 6: 13, 7: 8, 8: 10, 9: 2 };
for (const dep of depots) {
  const depVeh = vehicles.filter((v) => v.depot.id === dep.id);
  const hasBikes = depVeh.some((v) => v.type === 'e-bike');
  const hasTrucks = depVeh.some((v) => v.type === 'truck');
  for (let i = 0; i < driverCounts[dep.id]; i++) {
    let name;
    do name = `${pick(FIRST)} ${pick(LAST)}`; while (namesUsed.has(name));
    namesUsed.add(name);
    let licence = wpick(['Class 5', 'Class 3', 'Class 1', null], [70, 14, 6, hasBikes ? 10 : 0]);
    if (hasTrucks && i < 2) licence = i === 0 ? 'Class 3' : 'Class 1';
    if (hasBikes && i === 2) licence = null;
    let hire = d('2016-01-01') + Math.floor(Math.pow(rnd(), 0.7) * (d('2025-10-01') - d('2016-01-01')) / DAY) * DAY;
    if (dep.id === 9) hire = d(i === 0 ? '2025-10-27' : '2025-11-10');
    const active = dep.id === 9 ? true : chance(0.86);
    let leftOn = null;
    if (!active) leftOn = Math.max(hire + 60 * DAY, START + int(30, 700) * DAY);
    did++;
    drivers.push({ id: did, name, depot: dep, hire, licence, active, leftOn });
  }
}
// a couple of recent hires who haven't driven yet
for (const [depId, nm, lic, hd] of [[1, 'Noor Haddad', 'Class 5', '2025-11-17'], [4, 'Etienne Gagnon', 'Class 5', '2025-11-12'], [6, 'Sasha Novak', null, '2025-11-19']]) {
  did++; namesUsed.add(nm);
  drivers.push({ id: did, name: nm, depot: depots[depId - 1], hire: d(hd), licence: lic, active: true, leftOn: null, noTrips: true });
}
// one driver on long-term leave: active flag but never assigned (Calgary)
did++;
drivers.push({ id: did, name: 'Brendan O\'Reilly', depot: depots[7], hire: d('2024-02-05'), licence: 'Class 3', active: true, leftOn: null, noTrips: true });

// ---------- trips ----------
const speed = { van: 32, truck: 38, 'e-bike': 14, car: 40 };
const trips = [];
let tid = 0;
const depotOnTime = { 1: 0.9, 2: 0.91, 3: 0.88, 4: 0.79, 5: 0.85, 6: 0.89, 7: 0.9, 8: 0.93 };
const driverSkill = new Map(drivers.map((dr) => [dr.id, normal(0, 0.05)]));
for (let day = START; day < NOW; day += DAY) {
  const dt = new Date(day);
  const dow = dt.getUTCDay();
  const month = dt.getUTCMonth();
  const progress = (day - START) / (NOW - START);
  let rate = 4.2 + 3.4 * progress; // business grows
  if (month === 11) rate *= 1.45; // December peak
  if (month === 10 && dt.getUTCDate() >= 20) rate *= 1.2; // Black Friday ramp
  if (month === 0 || month === 1) rate *= 0.85;
  if (dow === 0) rate *= 0.15; else if (dow === 6) rate *= 0.55;
  let n = Math.max(0, Math.round(normal(rate, Math.sqrt(rate))));
  for (let k = 0; k < n; k++) {
    const avail = vehicles.filter((v) => v.inService <= day && (v.outOfService === null || v.outOfService > day) && v.depot.w > 0);
    const v = wpick(avail, avail.map((x) => x.depot.w * (x.type === 'truck' ? 0.7 : 1) * (x.status === 'in maintenance' && day > NOW - 30 * DAY ? 0.02 : 1)));
    const okDrivers = drivers.filter((dr) => dr.depot.id === v.depot.id && !dr.noTrips && dr.hire <= day && (dr.leftOn === null || dr.leftOn > day) &&
      (v.type === 'truck' ? dr.licence === 'Class 3' || dr.licence === 'Class 1' : v.type === 'e-bike' ? true : dr.licence !== null));
    if (okDrivers.length === 0) continue;
    const dr = wpick(okDrivers, okDrivers.map((x) => 1 + (x.id % 5) * 0.35));
    const startH = v.type === 'truck' ? uni(10.5, 15) : uni(11, 19); // UTC (morning local)
    const started = day + Math.round(startH * 60) * 60000;
    if (started >= NOW) continue;
    let dist, stops, pkgPerStop;
    if (v.type === 'van') { dist = lognormal(95, 0.45); stops = int(12, 42); pkgPerStop = uni(1.1, 2.4); }
    else if (v.type === 'truck') { dist = lognormal(170, 0.5); stops = int(3, 14); pkgPerStop = uni(4, 14); }
    else if (v.type === 'e-bike') { dist = lognormal(22, 0.35); stops = int(8, 28); pkgPerStop = uni(1, 1.6); }
    else { dist = lognormal(60, 0.4); stops = int(4, 16); pkgPerStop = uni(1, 1.5); }
    const cap = { van: 320, truck: 480, 'e-bike': 70, car: 220 }[v.type];
    dist = round(Math.min(cap * uni(0.9, 1), Math.max(2, dist)), 1);
    const durMin = (dist / speed[v.type]) * 60 + stops * uni(3.5, 7) + uni(10, 35);
    let ended = started + Math.round(durMin) * 60000;
    let pk = Math.max(stops, Math.round(stops * pkgPerStop));
    let onTime = chance(Math.min(0.99, depotOnTime[v.depot.id] + driverSkill.get(dr.id) - (month === 11 ? 0.08 : 0) - (stops > 35 ? 0.05 : 0)));
    let failed = chance(0.04) ? int(1, 3) : 0;
    pk = Math.max(0, pk - failed);
    let rating = null;
    if (chance(0.42)) {
      const base = onTime ? wpick([5, 4, 3, 2, 1], [58, 28, 9, 3, 2]) : wpick([5, 4, 3, 2, 1], [14, 24, 30, 18, 14]);
      rating = base;
    }
    let endedOut = ended, onTimeOut = onTime;
    if (chance(0.012)) endedOut = null; // driver never closed the run in the app
    tid++;
    trips.push({ id: tid, v, dr, started, ended: endedOut, dist, stops, pk, onTime: onTimeOut, rating });
  }
}

// ---------- fuel / charging purchases ----------
const consumption = { // per km
  'van|diesel': 0.118, 'van|gasoline': 0.152, 'truck|diesel': 0.235, 'car|hybrid': 0.049, 'car|gasoline': 0.075,
  'van|electric': 0.34, 'truck|electric': 1.05,
};
const tank = { 'van|diesel': 93, 'van|gasoline': 95, 'truck|diesel': 150, 'car|hybrid': 43, 'car|gasoline': 47 };
const STATIONS = ['Petro-Canada', 'Esso', 'Shell', 'Pioneer', 'Ultramar', 'Husky', 'Flying J', 'Costco Gas', 'Electrify Canada', 'FLO', 'ChargePoint', 'Tesla Supercharger', 'Petro-Canada EV'];
function fuelPrice(fuel, ms) {
  const t = (ms - START) / (365 * DAY);
  const season = Math.sin(2 * Math.PI * (t + 0.2)) * 0.07;
  if (fuel === 'diesel') return 1.86 - 0.14 * t + season + normal(0, 0.03);
  if (fuel === 'gasoline' || fuel === 'hybrid') return 1.62 - 0.06 * t + season + normal(0, 0.03);
  return 0; // electric handled separately
}
const purchases = [];
let pid = 0;
for (const v of vehicles) {
  if (v.type === 'e-bike') continue; // bikes charge at the depot: never bought
  const key = `${v.type}|${v.fuel}`;
  const vt = trips.filter((t) => t.v.id === v.id).sort((a, b) => a.started - b.started);
  let acc = 0;
  const threshold = v.fuel === 'electric' ? (v.type === 'truck' ? 180 : 55) : tank[key] * uni(0.55, 0.8);
  for (const t of vt) {
    acc += t.dist * consumption[key] * uni(0.9, 1.15);
    const share = v.fuel === 'electric' ? 0.35 : 1; // EVs mostly charge at the depot (not recorded)
    if (acc >= threshold / share) {
      const when = Math.min(t.ended ?? t.started, NOW - DAY);
      const qty = v.fuel === 'electric' ? round(uni(0.6, 1) * threshold, 1) : round(Math.min(tank[key] * 0.97, acc * uni(0.95, 1.02)), 2);
      let unit;
      let cost;
      if (v.fuel === 'electric') { unit = uni(0.32, 0.62); cost = qty * unit; }
      else { unit = fuelPrice(v.fuel, when); cost = qty * unit; }
      pid++;
      purchases.push({
        id: pid, v, date: fmtDate(chance(0.3) && when + DAY < NOW ? when + DAY : when), // filled up after the run or next morning
        litres: v.fuel === 'electric' ? null : qty, kwh: v.fuel === 'electric' ? qty : null,
        cost: round(cost, 2),
        station: v.fuel === 'electric' ? pick(STATIONS.slice(8)) : wpick(STATIONS.slice(0, 8), [26, 22, 18, 6, 10, 6, 4, 8]),
      });
      acc = 0;
    }
  }
}
// a few top-ups bought in jerry cans / missing station info
for (const p of purchases) if (chance(0.03)) p.station = null;

// ---------- maintenance ----------
const KINDS = {
  combustion: [['oil change', 30, [110, 260]], ['brake service', 14, [380, 1400]], ['tire replacement', 12, [700, 2600]], ['annual safety inspection', 16, [150, 420]], ['transmission repair', 3, [2200, 6800]], ['collision repair', 5, [900, 9500]], ['windshield replacement', 4, [420, 1100]], ['electrical diagnostics', 4, [180, 900]]],
  electric: [['brake service', 12, [300, 1100]], ['tire replacement', 16, [700, 2400]], ['annual safety inspection', 16, [150, 380]], ['battery replacement', 2, [9000, 24000]], ['software update', 10, [0, 180]], ['collision repair', 5, [900, 9500]], ['electrical diagnostics', 6, [180, 900]], ['windshield replacement', 3, [420, 1100]]],
  bike: [['tire replacement', 20, [90, 260]], ['brake service', 18, [60, 190]], ['battery replacement', 5, [700, 1300]], ['drivetrain overhaul', 8, [180, 520]]],
};
const GARAGES = {
  Ontario: ['In-house workshop', 'Mr. Lube Etobicoke', 'Fountain Tire Mississauga', 'Ontario Fleet Services', 'Speedy Glass'],
  Quebec: ['In-house workshop', 'Garage Lapointe & Fils', 'Centre de Camions Laval', 'Speedy Glass'],
  'British Columbia': ['In-house workshop', 'Kal Tire Burnaby', 'Pacific Fleet Repair', 'Speedy Glass'],
  Prairies: ['Kal Tire Calgary', 'Prairie Truck Centre', 'Speedy Glass'],
};
// which garages take which work: lube shops only do oil changes, tire shops do wheels/brakes/oil/inspections
const TIRE_SHOP_KINDS = ['tire replacement', 'brake service', 'oil change', 'annual safety inspection'];
function garageFor(v, kind) {
  if (kind === 'windshield replacement') return 'Speedy Glass';
  let options = GARAGES[v.depot.region].filter((g) => g !== 'Speedy Glass')
    .filter((g) => !g.startsWith('Mr. Lube') || kind === 'oil change')
    .filter((g) => !(g.startsWith('Fountain Tire') || g.startsWith('Kal Tire')) || TIRE_SHOP_KINDS.includes(kind));
  if (v.type === 'truck' && v.depot.region === 'Prairies') options = ['Prairie Truck Centre'];
  return pick(options);
}
const jobs = [];
let jid = 0;
for (const v of vehicles) {
  const fam = v.type === 'e-bike' ? 'bike' : v.fuel === 'electric' ? 'electric' : 'combustion';
  const list = KINDS[fam];
  let t = Math.max(v.inService, START - 20 * DAY) + int(40, 160) * DAY;
  const end = v.outOfService ?? NOW;
  while (t < end - 5 * DAY) {
    let [kind, , range] = wpick(list, list.map((x) => x[1]));
    let garage = garageFor(v, kind);
    let cost = uni(range[0], range[1]);
    if (garage === 'In-house workshop') cost *= 0.72;
    const days = kind === 'oil change' || kind === 'software update' ? int(0, 1) : kind.includes('repair') || kind === 'battery replacement' ? int(3, 21) : int(0, 6);
    let closed = t + days * DAY;
    jid++;
    jobs.push({ id: jid, v, opened: t, closed: closed < NOW - DAY ? closed : null, kind, cost: closed < NOW - DAY ? round(cost, 2) : null, garage });
    t += Math.round(lognormal(v.type === 'truck' ? 75 : 110, 0.4)) * DAY;
  }
  if (v.status === 'in maintenance') {
    const [kind] = pick(list.filter((x) => x[2][1] > 800 && x[0] !== 'windshield replacement'));
    jid++;
    const garage = garageFor(v, kind);
    jobs.push({ id: jid, v, opened: NOW - int(2, 24) * DAY, closed: null, kind, cost: null, garage });
  }
}
// any vehicle with a job still open is in the shop
for (const j of jobs) if (j.closed === null && j.v.status === 'active') j.v.status = 'in maintenance';
jobs.sort((a, b) => a.opened - b.opened || a.v.id - b.v.id);
jobs.forEach((j, i) => { j.id = i + 1; });

// ---------- SQL ----------
const q = (s) => (s === null || s === undefined ? 'NULL' : `'${String(s).replace(/'/g, "''")}'`);
const n = (x) => (x === null || x === undefined ? 'NULL' : String(x));
const b = (x) => (x === null ? 'NULL' : x ? 'true' : 'false');
const out = [];
out.push('-- Fleet evaluation set: a parcel-delivery fleet operator (Canada). Generated by generate.mjs; do not edit by hand.');
out.push('CREATE SCHEMA fleet;');
out.push(`
CREATE TABLE fleet.depots (
  depot_id integer PRIMARY KEY,
  name text NOT NULL UNIQUE,
  city text NOT NULL,
  region text NOT NULL
);

CREATE TABLE fleet.vehicles (
  vehicle_id integer PRIMARY KEY,
  plate text NOT NULL UNIQUE,
  make text NOT NULL,
  model text NOT NULL,
  vehicle_type text NOT NULL CHECK (vehicle_type IN ('van', 'truck', 'e-bike', 'car')),
  fuel_type text NOT NULL CHECK (fuel_type IN ('diesel', 'gasoline', 'electric', 'hybrid')),
  model_year integer NOT NULL,
  depot_id integer NOT NULL REFERENCES fleet.depots (depot_id),
  purchase_price numeric(12,2) NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'in maintenance', 'retired'))
);

CREATE TABLE fleet.drivers (
  driver_id integer PRIMARY KEY,
  full_name text NOT NULL UNIQUE,
  depot_id integer NOT NULL REFERENCES fleet.depots (depot_id),
  hire_date date NOT NULL,
  licence_class text,
  is_active boolean NOT NULL
);

CREATE TABLE fleet.trips (
  trip_id integer PRIMARY KEY,
  vehicle_id integer NOT NULL REFERENCES fleet.vehicles (vehicle_id),
  driver_id integer NOT NULL REFERENCES fleet.drivers (driver_id),
  started_at timestamptz NOT NULL,
  ended_at timestamptz,
  distance_km numeric(8,1) NOT NULL,
  stops integer NOT NULL,
  packages_delivered integer NOT NULL,
  on_time boolean,
  customer_rating smallint CHECK (customer_rating BETWEEN 1 AND 5)
);

CREATE TABLE fleet.fuel_purchases (
  purchase_id integer PRIMARY KEY,
  vehicle_id integer NOT NULL REFERENCES fleet.vehicles (vehicle_id),
  purchased_on date NOT NULL,
  litres numeric(8,2),
  kwh numeric(8,1),
  cost numeric(12,2) NOT NULL,
  station text
);

CREATE TABLE fleet.maintenance_jobs (
  job_id integer PRIMARY KEY,
  vehicle_id integer NOT NULL REFERENCES fleet.vehicles (vehicle_id),
  opened_on date NOT NULL,
  closed_on date,
  kind text NOT NULL,
  cost numeric(12,2),
  garage text NOT NULL
);

COMMENT ON TABLE fleet.trips IS 'One delivery run: a vehicle and driver leave the depot, make stops, and return.';
COMMENT ON COLUMN fleet.trips.ended_at IS 'NULL when the driver never closed the run in the app.';
COMMENT ON COLUMN fleet.trips.on_time IS 'true when every stop was delivered inside its promised window.';
COMMENT ON COLUMN fleet.trips.customer_rating IS '1-5 stars from the recipient survey; NULL when nobody rated the run.';
COMMENT ON COLUMN fleet.fuel_purchases.litres IS 'Litres of diesel or gasoline bought; NULL for charging sessions.';
COMMENT ON COLUMN fleet.fuel_purchases.kwh IS 'kWh bought at a public charger; NULL for fuel. Depot charging is not recorded.';
COMMENT ON COLUMN fleet.maintenance_jobs.cost IS 'Invoiced cost; NULL while the job is still open.';
COMMENT ON COLUMN fleet.maintenance_jobs.closed_on IS 'NULL while the job is still open.';
`);
function inserts(table, cols, rows) {
  for (let i = 0; i < rows.length; i += 400) {
    const chunk = rows.slice(i, i + 400);
    out.push(`INSERT INTO fleet.${table} (${cols.join(', ')}) VALUES\n` + chunk.map((r) => `(${r.join(', ')})`).join(',\n') + ';');
  }
}
inserts('depots', ['depot_id', 'name', 'city', 'region'], depots.map((x) => [x.id, q(x.name), q(x.city), q(x.region)]));
inserts('vehicles', ['vehicle_id', 'plate', 'make', 'model', 'vehicle_type', 'fuel_type', 'model_year', 'depot_id', 'purchase_price', 'status'],
  vehicles.map((v) => [v.id, q(v.plate), q(v.make), q(v.model), q(v.type), q(v.fuel), v.year, v.depot.id, v.price.toFixed(2), q(v.status)]));
inserts('drivers', ['driver_id', 'full_name', 'depot_id', 'hire_date', 'licence_class', 'is_active'],
  drivers.map((x) => [x.id, q(x.name), x.depot.id, q(fmtDate(x.hire)), q(x.licence), b(x.active)]));
inserts('trips', ['trip_id', 'vehicle_id', 'driver_id', 'started_at', 'ended_at', 'distance_km', 'stops', 'packages_delivered', 'on_time', 'customer_rating'],
  trips.map((t) => [t.id, t.v.id, t.dr.id, q(fmtTs(t.started)), t.ended === null ? 'NULL' : q(fmtTs(t.ended)), t.dist.toFixed(1), t.stops, t.pk, b(t.onTime), n(t.rating)]));
inserts('fuel_purchases', ['purchase_id', 'vehicle_id', 'purchased_on', 'litres', 'kwh', 'cost', 'station'],
  purchases.sort((a, b2) => (a.date < b2.date ? -1 : a.date > b2.date ? 1 : a.v.id - b2.v.id)).map((p, i) => [i + 1, p.v.id, q(p.date), p.litres === null ? 'NULL' : p.litres.toFixed(2), p.kwh === null ? 'NULL' : p.kwh.toFixed(1), p.cost.toFixed(2), q(p.station)]));
inserts('maintenance_jobs', ['job_id', 'vehicle_id', 'opened_on', 'closed_on', 'kind', 'cost', 'garage'],
  jobs.map((j) => [j.id, j.v.id, q(fmtDate(j.opened)), j.closed === null ? 'NULL' : q(fmtDate(j.closed)), q(j.kind), j.cost === null ? 'NULL' : j.cost.toFixed(2), q(j.garage)]));

writeFileSync(OUT, out.join('\n') + '\n');
console.log(`depots ${depots.length}, vehicles ${vehicles.length}, drivers ${drivers.length}, trips ${trips.length}, fuel_purchases ${purchases.length}, maintenance_jobs ${jobs.length}`);
console.log(`total rows ${depots.length + vehicles.length + drivers.length + trips.length + purchases.length + jobs.length}`);
