import { inflateSync } from 'node:zlib';
import { querySpecSchema, type QuerySpecInput, type QuerySpec } from '@aqs/contracts';
import { buildChart, type BuildChartInput } from '../src/index.ts';

export function spec(input: Partial<QuerySpecInput>): QuerySpec {
  return querySpecSchema.parse({ source: 'orders', ...input });
}

export function days(n: number, start = Date.UTC(2024, 0, 1)): string[] {
  return Array.from({ length: n }, (_, i) => new Date(start + i * 86_400_000).toISOString());
}

export interface Decoded {
  width: number;
  height: number;
  /** RGBA, 4 bytes per pixel. */
  pixels: Buffer;
}

export const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Minimal PNG decoder for 8-bit RGBA / RGB non-interlaced images (what resvg writes). */
export function decodePng(png: Buffer): Decoded {
  if (!png.subarray(0, 8).equals(PNG_MAGIC)) throw new Error('not a PNG');
  let pos = 8;
  let width = 0;
  let height = 0;
  let colorType = 0;
  const idat: Buffer[] = [];
  while (pos < png.length) {
    const len = png.readUInt32BE(pos);
    const type = png.toString('latin1', pos + 4, pos + 8);
    const data = png.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[12] !== 0) throw new Error('unsupported PNG');
      colorType = data[9]!;
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    pos += 12 + len;
  }
  const bpp = colorType === 6 ? 4 : colorType === 2 ? 3 : 0;
  if (!bpp) throw new Error(`unsupported colour type ${colorType}`);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const out = Buffer.alloc(width * height * 4);
  let prev = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? line[x - bpp]! : 0;
      const b = prev[x]!;
      const c = x >= bpp ? prev[x - bpp]! : 0;
      let add = 0;
      if (filter === 1) add = a;
      else if (filter === 2) add = b;
      else if (filter === 3) add = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        add = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      line[x] = (line[x]! + add) & 0xff;
    }
    for (let x = 0; x < width; x++) {
      out[(y * width + x) * 4] = line[x * bpp]!;
      out[(y * width + x) * 4 + 1] = line[x * bpp + 1]!;
      out[(y * width + x) * 4 + 2] = line[x * bpp + 2]!;
      out[(y * width + x) * 4 + 3] = bpp === 4 ? line[x * bpp + 3]! : 255;
    }
    prev = line;
  }
  return { width, height, pixels: out };
}

/** Pixels in the rectangle that are clearly darker than white (text, lines, bars). */
export function darkPixels(
  img: Decoded,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  threshold = 160,
): number {
  let n = 0;
  for (let y = y0; y < Math.min(y1, img.height); y++) {
    for (let x = x0; x < Math.min(x1, img.width); x++) {
      const i = (y * img.width + x) * 4;
      const lum = 0.299 * img.pixels[i]! + 0.587 * img.pixels[i + 1]! + 0.114 * img.pixels[i + 2]!;
      if (img.pixels[i + 3]! > 0 && lum < threshold) n++;
    }
  }
  return n;
}

/** Freezes an option all the way down, so a function that changes it throws. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Built options of every kind the style engine meets, frozen. */
export function sampleCharts() {
  const built = (input: BuildChartInput) => {
    const chart = buildChart(input);
    if (!chart) throw new Error('no chart built');
    return deepFreeze(chart.option) as Record<string, unknown>;
  };
  return {
    /** Two series stacked (counts by region and status), a legend. */
    bars: built({
      columns: [
        { name: 'region', type: 'keyword' },
        { name: 'status', type: 'keyword' },
        { name: 'orders', type: 'long' },
      ],
      rows: [
        ['EU', 'ok', 10],
        ['EU', 'err', 3],
        ['US', 'ok', 14],
        ['US', 'err', 5],
      ],
      spec: spec({
        group_by: [
          { column: { column: 'region' }, alias: 'region' },
          { column: { column: 'status' }, alias: 'status' },
        ],
        aggregates: [{ fn: 'count', alias: 'orders' }],
      }),
      requested: true,
    }),
    /** One series over 60 categories: horizontal, the top 49 and "Other", a note as the subtitle. */
    horizontalBars: built({
      columns: [
        { name: 'product', type: 'keyword' },
        { name: 'sold', type: 'long' },
      ],
      rows: Array.from({ length: 60 }, (_, i) => [`product ${i + 1}`, 200 - i * 3]),
      spec: spec({
        group_by: [{ column: { column: 'product' }, alias: 'product' }],
        aggregates: [{ fn: 'sum', column: { column: 'quantity' }, alias: 'sold' }],
      }),
      requested: true,
    }),
    /** Two measures over 5 days on a time axis, a legend. */
    lines: built({
      columns: [
        { name: 'day', type: 'date' },
        { name: 'a', type: 'long' },
        { name: 'b', type: 'long' },
      ],
      rows: days(5).map((d, i) => [d, i, 2 * i]),
      requested: true,
    }),
    /** 300 hourly points of 8 series: a data-zoom slider under the plot, a legend that pages. */
    zoomed: built({
      columns: [
        { name: 'hour', type: 'date' },
        { name: 'service', type: 'keyword' },
        { name: 'requests', type: 'long' },
      ],
      rows: Array.from({ length: 300 }, (_, i) =>
        new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(),
      ).flatMap((hour, i) =>
        Array.from({ length: 8 }, (_, j) => [hour, `service number ${j + 1}`, 1000 + (i % 17) * 5 * (j + 1)]),
      ),
      requested: false,
    }),
    /** Bars on a time axis. */
    timeBars: built({
      columns: [
        { name: 'day', type: 'date' },
        { name: 'n', type: 'long' },
      ],
      rows: days(4).map((d, i) => [d, i + 1]),
      requested: true,
      preferredType: 'bar',
    }),
    pie: built({
      columns: [
        { name: 'os', type: 'keyword' },
        { name: 'users', type: 'long' },
      ],
      rows: [
        ['linux', 50],
        ['macOS', 30],
        ['Windows', 20],
      ],
      requested: true,
      preferredType: 'pie',
    }),
    scatter: built({
      columns: [
        { name: 'price', type: 'double' },
        { name: 'quantity', type: 'long' },
      ],
      rows: Array.from({ length: 60 }, (_, i) => [(i * 37) % 101, (i * 53) % 89]),
      requested: false,
    }),
  };
}
