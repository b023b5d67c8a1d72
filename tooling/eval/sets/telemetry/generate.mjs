// Deterministic generator for the `telemetry` evaluation set (smart-building IoT sensors).
// Plain Node ESM: no npm packages, no network, no clock reads. Run: node generate.mjs
// Writes fixture/ next to this file in the es-test-cluster fixture format.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'fixture');

// ---------------------------------------------------------------- PRNG
function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = mulberry32(20250908);
const uni = (lo, hi) => lo + (hi - lo) * rnd();
const int = (lo, hi) => Math.floor(uni(lo, hi + 1));
const pick = (arr) => arr[Math.floor(rnd() * arr.length)];
const chance = (p) => rnd() < p;
const gauss = () => {
  let s = 0;
  for (let i = 0; i < 6; i++) s += rnd();
  return s - 3; // approx N(0, 0.707)
};
const r1 = (x) => Math.round(x * 10) / 10;
const pad = (n, w = 2) => String(n).padStart(w, '0');

// ---------------------------------------------------------------- time
const DAY = 86400000;
const HOUR = 3600000;
const MIN = 60000;
const START = Date.UTC(2025, 8, 1); // 2025-09-01 (Monday)
const NOW = Date.UTC(2025, 9, 8, 10, 0, 0); // set.json "now": 2025-10-08T10:00:00Z
const GAP_DAY = Date.UTC(2025, 8, 21); // gateway outage: no readings, no index
const FIRMWARE_ROLLOUT = Date.UTC(2025, 8, 24, 12); // Northwind thermostats 3.1.4 -> 3.2.0
const iso = (ms) => new Date(ms).toISOString();
const isoDate = (ms) => iso(ms).slice(0, 10);
const dow = (ms) => new Date(ms).getUTCDay(); // 0 Sunday .. 6 Saturday
const isWeekend = (ms) => dow(ms) === 0 || dow(ms) === 6;

// ---------------------------------------------------------------- buildings
const BUILDINGS = [
  { name: 'Harbor View Tower', city: 'Boston', floors: 12, base: 21.6 },
  { name: 'Harborview Annex', city: 'Boston', floors: 3, base: 22.4 },
  { name: 'Lakeshore Center', city: 'Chicago', floors: 20, base: 21.1 },
  { name: 'Loop Commons', city: 'Chicago', floors: 8, base: 22.0 },
  { name: 'Congress Point', city: 'Austin', floors: 6, base: 23.3 },
  { name: 'Mile High Works', city: 'Denver', floors: 5, base: 20.7 },
  { name: 'Eastbank Depot', city: 'Denver', floors: 2, base: 21.0 },
];
const B = Object.fromEntries(BUILDINGS.map((b) => [b.name, b]));

// Skewed allocation of devices to buildings (Lakeshore Center is the big one).
const BUILDING_WEIGHTS = [
  ['Lakeshore Center', 30],
  ['Harbor View Tower', 22],
  ['Loop Commons', 14],
  ['Congress Point', 12],
  ['Mile High Works', 10],
  ['Harborview Annex', 6],
];
function weightedBuilding() {
  const total = BUILDING_WEIGHTS.reduce((s, [, w]) => s + w, 0);
  let x = rnd() * total;
  for (const [name, w] of BUILDING_WEIGHTS) {
    x -= w;
    if (x < 0) return name;
  }
  return BUILDING_WEIGHTS[0][0];
}

// ---------------------------------------------------------------- device inventory
const TYPES = [
  { type: 'thermostat', prefix: 'TH', count: 22, battery: false,
    vendors: [['Northwind Controls', ['NW-T200', 'NW-T300']], ['Northwind Systems', ['NS-Therm 5']], ['Acme IoT', ['AT-10']]] },
  { type: 'co2', prefix: 'CO', count: 16, battery: true,
    vendors: [['Sensirio', ['SCD-41 Pro']], ['Acme IoT', ['AC-CO2']]] },
  { type: 'humidity', prefix: 'HU', count: 12, battery: true,
    vendors: [['Sensirio', ['SHT-Hub']], ['Acme IoT', ['AH-2']]] },
  { type: 'door', prefix: 'DR', count: 14, battery: true,
    vendors: [['Gatewise', ['GW-Door2']], ['Acme IoT', ['AD-1']]] },
  { type: 'power-meter', prefix: 'PM', count: 8, battery: false,
    vendors: [['Voltic', ['VM-3P']], ['Northwind Systems', ['NS-PM1']]] },
];
const FIRMWARE = {
  'Northwind Controls': ['3.1.4'],
  'Northwind Systems': ['1.8.0', '1.9.2'],
  'Acme IoT': ['0.9.7', '1.0.1', null],
  Sensirio: ['4.2.0', '4.10.1'],
  Gatewise: ['2.0.3'],
  Voltic: ['5.5.0', '5.6.1'],
};
const TAG_POOL = ['hvac', 'critical', 'pilot', 'east-wing', 'west-wing', 'lobby', 'conference', 'server-room', 'tenant-a'];

// Hand-placed special cases.
const NEVER_REPORTING = new Set(['TH-022', 'CO-016', 'HU-012', 'DR-014', 'CO-015', 'PM-006']);
const EASTBANK_NEW = new Set(['TH-022', 'CO-016', 'HU-012', 'DR-014']); // installed 2025-10-06/07, not live yet
const DECOMMISSIONED = {
  'TH-007': { at: Date.UTC(2025, 8, 15), keepsReporting: true },
  'CO-004': { at: Date.UTC(2025, 8, 20), keepsReporting: false },
  'DR-011': { at: Date.UTC(2025, 7, 1), keepsReporting: true },
  'PM-006': { at: Date.UTC(2025, 5, 30), keepsReporting: false },
};
const HOT_THERMOSTAT = 'TH-012'; // runs hot (broken damper)
const CO2_CONFERENCE = 'CO-003'; // crowded conference room, CO2 spikes
const FLAKY = 'HU-005'; // frequent faults
const OUTAGE = { device: 'HU-008', from: Date.UTC(2025, 8, 10), to: Date.UTC(2025, 8, 17) };

const devices = [];
for (const t of TYPES) {
  for (let i = 1; i <= t.count; i++) {
    const id = `${t.prefix}-${pad(i, 3)}`;
    const [vendor, models] = pick(t.vendors);
    const model = pick(models);
    let building = EASTBANK_NEW.has(id) ? 'Eastbank Depot' : weightedBuilding();
    if (id === HOT_THERMOSTAT) building = 'Loop Commons';
    if (id === CO2_CONFERENCE) building = 'Lakeshore Center';
    const b = B[building];
    let floor = t.type === 'door' ? pick([1, 1, 1, 2]) : int(1, b.floors);
    if (t.type === 'power-meter') floor = pick([0, 1]); // basement or ground floor switchgear
    const floorMissing = chance(0.07);
    let installed;
    if (EASTBANK_NEW.has(id)) installed = Date.UTC(2025, 9, 6) + int(0, 1) * DAY + int(8, 16) * HOUR;
    else if (id === 'CO-015') installed = Date.UTC(2025, 7, 12, 14);
    else installed = Date.UTC(2022, 0, 1) + Math.floor(uni(0, 1240)) * DAY + int(8, 17) * HOUR;
    const warrantyYears = vendor === 'Acme IoT' ? 2 : vendor === 'Voltic' ? 5 : 3;
    const warranty = new Date(installed);
    warranty.setUTCFullYear(warranty.getUTCFullYear() + warrantyYears);
    const warrantyEnd = Date.UTC(warranty.getUTCFullYear(), warranty.getUTCMonth(), warranty.getUTCDate());
    let fw = pick(FIRMWARE[vendor]);
    const tags = [];
    const nTags = pick([0, 1, 1, 2, 2, 3]);
    while (tags.length < nTags) {
      const tg = pick(TAG_POOL);
      if (!tags.includes(tg)) tags.push(tg);
    }
    if (t.type === 'thermostat' && !tags.includes('hvac') && chance(0.6)) tags.push('hvac');
    if (id === CO2_CONFERENCE && !tags.includes('conference')) tags.push('conference');
    const dec = DECOMMISSIONED[id];
    devices.push({
      id, type: t.type, battery: t.battery, vendor, model, building, city: b.city,
      floor: floorMissing ? null : floor, installed, warrantyEnd, fw, tags,
      decommissioned: !!dec, decommissionedAt: dec ? dec.at : null,
      reports: !NEVER_REPORTING.has(id) && !(dec && !dec.keepsReporting && dec.at < START),
      stopAt: dec && !dec.keepsReporting ? dec.at : Infinity,
      // per-device character
      tempOffset: gauss() * 0.8 + (id === HOT_THERMOSTAT ? 5.5 : 0),
      co2Scale: uni(0.8, 1.25) * (id === CO2_CONFERENCE ? 1.7 : 1),
      humidBase: uni(35, 52),
      battery0: t.battery ? int(35, 100) : null,
      drain: t.battery ? uni(0.3, 1.6) : null,
      wattsBase: uni(1800, 5200) * (building === 'Lakeshore Center' ? 2.2 : 1),
      rssi: int(-85, -48),
      traffic: t.type === 'door' ? (tags.includes('lobby') ? uni(2.0, 2.6) : uni(0.5, 1.5)) : 1,
    });
  }
}

// ---------------------------------------------------------------- readings
const readingsByDay = new Map(); // yyyy.mm.dd -> docs
const alerts = [];
let alertSeq = 10001;

function slotsFor(dev, day) {
  const weekend = isWeekend(day);
  const j = () => int(0, 19) * MIN + int(0, 59) * 1000;
  switch (dev.type) {
    case 'thermostat': return [0, 6, 12, 18].map((h) => day + h * HOUR + j());
    case 'co2': return [2, 8, 14, 20].map((h) => day + h * HOUR + j());
    case 'humidity': return [4, 12, 20].map((h) => day + h * HOUR + j());
    case 'power-meter': return [3, 9, 15, 21].map((h) => day + h * HOUR + j());
    case 'door': {
      const n = Math.max(1, Math.round((weekend ? int(1, 3) : int(5, 8)) * dev.traffic));
      const ts = [];
      for (let k = 0; k < n; k++) ts.push(day + int(weekend ? 9 : 7, weekend ? 17 : 19) * HOUR + int(0, 59) * MIN + int(0, 59) * 1000);
      return ts.sort((a, b) => a - b);
    }
    default: return [];
  }
}

function openAlert(dev, at, rule, severity, forceOpen = false) {
  const ackDelay = severity === 'critical' ? uni(2, 25) : severity === 'high' ? uni(5, 90) : uni(15, 600);
  // whole minutes after opening, so minute/hour differences are exact
  let acked = chance(0.88) ? at + Math.round(ackDelay) * MIN : null;
  let resolved = chance(0.9) ? (acked ?? at) + Math.round(uni(0.3, 30) * 60) * MIN : null;
  if (forceOpen) acked = resolved = null;
  if (acked !== null && acked >= NOW) acked = null;
  if (resolved !== null && resolved >= NOW) resolved = null;
  const status = resolved !== null ? 'resolved' : acked !== null ? 'acknowledged' : 'open';
  const doc = {
    'device.id': dev.id,
    'alert.severity': severity,
    'rule.name': rule,
    'alert.opened_at': iso(at),
  };
  if (acked !== null) doc['alert.acknowledged_at'] = iso(acked);
  if (resolved !== null) doc['alert.resolved_at'] = iso(resolved);
  doc['alert.status'] = status;
  alerts.push({ at, doc });
}

const lastAlert = new Map(); // device|rule -> ms (debounce)
function maybeAlert(dev, at, rule, severity, p) {
  const key = `${dev.id}|${rule}`;
  const prev = lastAlert.get(key) ?? -Infinity;
  if (at - prev < 8 * HOUR) return;
  if (!chance(p)) return;
  lastAlert.set(key, at);
  openAlert(dev, at, rule, severity);
}

for (const dev of devices) {
  if (!dev.reports) continue;
  let battery = dev.battery0;
  let fw = dev.fw;
  let doorOpen = false;
  for (let day = START; day < NOW; day += DAY) {
    if (day === GAP_DAY) continue;
    if (dev.id === OUTAGE.device && day >= OUTAGE.from && day < OUTAGE.to) {
      if (day === OUTAGE.from) openAlert(dev, day + 9 * HOUR + 17 * MIN, 'Device offline', 'high');
      continue;
    }
    if (battery !== null) {
      battery -= dev.drain;
      if (battery < 6 && chance(0.5)) battery = 100; // facilities swapped the battery
    }
    const weekend = isWeekend(day);
    for (const ts of slotsFor(dev, day)) {
      if (ts >= NOW || ts >= dev.stopAt) continue;
      if (chance(0.035)) continue; // dropped packet
      const hour = new Date(ts).getUTCHours();
      const doc = { '@timestamp': iso(ts), device: { id: dev.id, type: dev.type } };
      doc.building = dev.floor === null ? { name: dev.building } : { name: dev.building, floor: dev.floor };
      doc.site = { city: dev.city };
      if (dev.vendor === 'Northwind Controls' && ts >= FIRMWARE_ROLLOUT && dev.id !== 'TH-003') fw = '3.2.0';
      if (fw !== null) doc.firmware = { version: fw };
      let status = 'ok';
      let message = 'Reading nominal';
      const reading = {};
      const b = B[dev.building];
      const occupied = !weekend && hour >= 8 && hour <= 18;
      if (dev.type === 'thermostat' || dev.type === 'humidity' || (dev.type === 'co2' && dev.model === 'SCD-41 Pro')) {
        const diurnal = Math.sin(((hour - 9) / 24) * 2 * Math.PI) * 1.2;
        const seasonal = -((ts - START) / DAY) * 0.05; // autumn cooling
        let t = b.base + dev.tempOffset + diurnal + seasonal + (weekend ? 1.4 : 0) + gauss() * 0.5;
        if (dev.type !== 'thermostat') t += 0.6;
        reading.temperature_c = r1(t);
        if (t > 27 || t < 16) {
          status = 'warning';
          message = 'Temperature out of range';
          maybeAlert(dev, ts, 'Temperature out of range', t > 29 ? 'high' : 'medium', 0.35);
        }
      }
      if (dev.type === 'humidity' || (dev.type === 'thermostat' && dev.model !== 'AT-10')) {
        let h = dev.humidBase + gauss() * 4 - ((ts - START) / DAY) * 0.12 + (hour < 8 ? 3 : 0);
        reading.humidity_pct = r1(Math.max(12, Math.min(90, h)));
      }
      if (dev.type === 'co2') {
        let c = 420 + gauss() * 15;
        if (occupied) c += (350 + 450 * Math.sin(((hour - 8) / 10) * Math.PI)) * dev.co2Scale + gauss() * 60;
        else if (!weekend && hour === 20) c += 120 * dev.co2Scale;
        const ppm = Math.round(c);
        reading.co2_ppm = ppm;
        if (ppm > 1400) {
          status = 'warning';
          message = 'CO2 above threshold';
          maybeAlert(dev, ts, 'High CO2', ppm > 1700 ? 'high' : 'medium', 0.5);
        }
      }
      if (Object.keys(reading).length) doc.reading = reading;
      if (dev.type === 'power-meter') {
        let w = dev.wattsBase * (0.8 + 0.1 * gauss());
        if (!weekend && hour >= 8 && hour <= 18) w *= uni(2.6, 3.6);
        else if (weekend && hour >= 8 && hour <= 18) w *= uni(1.2, 1.5);
        if (chance(0.012)) {
          w *= 2.4;
          status = 'warning';
          message = 'Power spike detected';
          maybeAlert(dev, ts, 'Power spike', 'high', 0.9);
        }
        doc.power = { watts: r1(w) };
      }
      if (dev.type === 'door') {
        doorOpen = !doorOpen;
        doc.door = { state: doorOpen ? 'open' : 'closed' };
        message = doorOpen ? 'Door opened' : 'Door closed';
        if (doorOpen && chance(0.04)) {
          status = 'warning';
          message = 'Door held open';
          maybeAlert(dev, ts, 'Door held open', pick(['low', 'medium']), 0.8);
        }
      }
      if (battery !== null) {
        const pct = Math.max(1, Math.round(battery));
        if (!chance(0.03)) doc.battery = { pct };
        if (pct < 15) {
          if (status === 'ok') {
            status = 'warning';
            message = 'Battery low';
          }
          maybeAlert(dev, ts, 'Battery low', pct < 8 ? 'high' : 'low', 0.25);
        }
      }
      const faultP = dev.id === FLAKY ? 0.16 : dev.id === 'PM-002' ? 0.05 : 0.008;
      if (chance(faultP)) {
        status = 'error';
        message = chance(0.5) ? 'Sensor fault: retrying' : 'Communication retry';
        maybeAlert(dev, ts, 'Sensor fault', pick(['critical', 'high', 'high', 'medium']), 0.6);
      }
      doc.status = status;
      doc.message = message;
      if (dev.tags.length === 1) doc.tags = dev.tags[0];
      else if (dev.tags.length > 1) doc.tags = [...dev.tags];
      // field whose mapping type changed with the October gateway firmware
      const october = ts >= Date.UTC(2025, 9, 1);
      doc.signal = { rssi: october ? `${dev.rssi + int(-4, 4)} dBm` : dev.rssi + int(-4, 4) };
      if (chance(0.1) || status === 'error') {
        doc.diagnostics = [{ code: status === 'error' ? pick(['E12', 'E31', 'E40']) : 'I01', value: int(1, 9) }];
        if (chance(0.3)) doc.diagnostics.push({ code: 'I02', value: int(1, 99) });
      }
      const key = `${new Date(day).getUTCFullYear()}.${pad(new Date(day).getUTCMonth() + 1)}.${pad(new Date(day).getUTCDate())}`;
      if (!readingsByDay.has(key)) readingsByDay.set(key, []);
      readingsByDay.get(key).push({ ts, id: dev.id, doc });
    }
  }
}

// Alerts for devices that never came online / random manual alerts.
const co15 = devices.find((d) => d.id === 'CO-015');
openAlert(co15, Date.UTC(2025, 8, 3, 11, 2), 'Device offline', 'medium');
openAlert(co15, Date.UTC(2025, 8, 29, 8, 45), 'Device offline', 'high');
// A critical fault on the Denver meter this morning, nobody has picked it up yet.
openAlert(devices.find((d) => d.id === 'PM-002'), Date.UTC(2025, 9, 8, 7, 42, 10), 'Sensor fault', 'critical', true);

// ---------------------------------------------------------------- mappings
const sensorProps = (october) => ({
  '@timestamp': { type: 'date' },
  device: { properties: { id: { type: 'keyword' }, type: { type: 'keyword' } } },
  building: { properties: { name: { type: 'keyword' }, floor: { type: 'short' } } },
  site: { properties: { city: { type: 'keyword' } } },
  reading: {
    properties: {
      temperature_c: { type: 'float' },
      co2_ppm: { type: 'integer' },
      humidity_pct: { type: 'float' },
    },
  },
  power: { properties: { watts: { type: 'double' } } },
  battery: { properties: { pct: { type: 'byte' } } },
  door: { properties: { state: { type: 'keyword' } } },
  firmware: { properties: { version: { type: 'keyword' } } },
  status: { type: 'keyword' },
  message: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
  tags: { type: 'keyword' },
  signal: { properties: { rssi: october ? { type: 'keyword' } : { type: 'integer' } } },
  diagnostics: { type: 'nested', properties: { code: { type: 'keyword' }, value: { type: 'integer' } } },
});

const deviceMapping = {
  properties: {
    device: {
      properties: {
        id: { type: 'keyword' },
        type: { type: 'keyword' },
        vendor: { type: 'keyword' },
        model: { type: 'keyword' },
        installed_at: { type: 'date' },
        warranty_end: { type: 'date' },
        decommissioned: { type: 'boolean' },
        decommissioned_at: { type: 'date' },
      },
    },
    building: { properties: { name: { type: 'keyword' }, floor: { type: 'short' } } },
    site: { properties: { city: { type: 'keyword' } } },
    tags: { type: 'keyword' },
  },
};

const alertMapping = {
  properties: {
    alert: {
      properties: {
        id: { type: 'keyword' },
        severity: { type: 'keyword' },
        status: { type: 'keyword' },
        opened_at: { type: 'date' },
        acknowledged_at: { type: 'date' },
        resolved_at: { type: 'date' },
      },
    },
    device: { properties: { id: { type: 'keyword' } } },
    rule: { properties: { name: { type: 'keyword' } } },
  },
};

// ---------------------------------------------------------------- write
rmSync(out, { recursive: true, force: true });
const writeIndex = (name, mapping, docs) => {
  const dir = join(out, 'indices', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'mapping.json'), JSON.stringify(mapping, null, 2) + '\n');
  writeFileSync(join(dir, 'docs.ndjson'), docs.map((d) => JSON.stringify(d)).join('\n') + (docs.length ? '\n' : ''));
};

const dayKeys = [...readingsByDay.keys()].sort();
let readingCount = 0;
for (const key of dayKeys) {
  const rows = readingsByDay.get(key).sort((a, b) => a.ts - b.ts || (a.id < b.id ? -1 : 1));
  readingCount += rows.length;
  writeIndex(`sensors-${key}`, { properties: sensorProps(key >= '2025.10.01') }, rows.map((r) => r.doc));
}

const deviceDocs = devices.map((d) => {
  const doc = {
    device: {
      id: d.id, type: d.type, vendor: d.vendor, model: d.model,
      installed_at: iso(d.installed),
      warranty_end: isoDate(d.warrantyEnd),
      decommissioned: d.decommissioned,
    },
    building: d.floor === null ? { name: d.building } : { name: d.building, floor: d.floor },
    site: { city: d.city },
  };
  if (d.decommissionedAt !== null) doc.device.decommissioned_at = isoDate(d.decommissionedAt);
  if (d.tags.length) doc.tags = d.tags.length === 1 ? d.tags[0] : [...d.tags];
  return doc;
});
writeIndex('devices', deviceMapping, deviceDocs);

alerts.sort((a, b) => a.at - b.at || (a.doc['device.id'] < b.doc['device.id'] ? -1 : 1));
const alertDocs = alerts.map(({ doc }) => {
  const o = { alert: { id: `AL-${alertSeq++}`, severity: doc['alert.severity'], status: doc['alert.status'], opened_at: doc['alert.opened_at'] } };
  if (doc['alert.acknowledged_at']) o.alert.acknowledged_at = doc['alert.acknowledged_at'];
  if (doc['alert.resolved_at']) o.alert.resolved_at = doc['alert.resolved_at'];
  o.device = { id: doc['device.id'] };
  o.rule = { name: doc['rule.name'] };
  return o;
});
writeIndex('alerts', alertMapping, alertDocs);

writeFileSync(join(out, 'aliases.json'), JSON.stringify({ sensors: dayKeys.map((k) => `sensors-${k}`) }, null, 2) + '\n');

process.stdout.write(`sensors-*: ${dayKeys.length} indices, ${readingCount} readings; devices: ${deviceDocs.length}; alerts: ${alertDocs.length}\n`);
