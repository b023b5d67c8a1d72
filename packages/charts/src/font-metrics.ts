/**
 * Text widths from the TTF files used for PNG rendering. ECharts lays out labels, legends and
 * truncation by measuring text; on a server without a canvas it falls back to a narrow built-in
 * table, so labels drawn in DejaVu Sans (a wide face) overflowed and overlapped. Reading the
 * advance widths from the font's own `cmap` and `hmtx` tables makes layout match what resvg draws.
 */
import { readFileSync } from 'node:fs';

export interface FontMetrics {
  /** Advance width per BMP code point, in em. */
  widths: Map<number, number>;
  /** Width used for characters the font does not map, in em. */
  fallback: number;
}

function table(buf: Buffer, tag: string): number {
  const numTables = buf.readUInt16BE(4);
  for (let i = 0; i < numTables; i++) {
    const rec = 12 + i * 16;
    if (buf.toString('latin1', rec, rec + 4) === tag) return buf.readUInt32BE(rec + 8);
  }
  throw new Error(`font has no ${tag} table`);
}

/** Reads advance widths for the BMP (cmap format 4, Unicode subtable) from a TrueType file. */
export function readFontMetrics(path: string): FontMetrics {
  const buf = readFileSync(path);
  const head = table(buf, 'head');
  const unitsPerEm = buf.readUInt16BE(head + 18);
  const hhea = table(buf, 'hhea');
  const numberOfHMetrics = buf.readUInt16BE(hhea + 34);
  const hmtx = table(buf, 'hmtx');
  const advance = (glyph: number): number =>
    buf.readUInt16BE(hmtx + 4 * Math.min(glyph, numberOfHMetrics - 1));

  const cmap = table(buf, 'cmap');
  const numSub = buf.readUInt16BE(cmap + 2);
  let sub = -1;
  for (let i = 0; i < numSub; i++) {
    const platform = buf.readUInt16BE(cmap + 4 + i * 8);
    const encoding = buf.readUInt16BE(cmap + 6 + i * 8);
    const offset = cmap + buf.readUInt32BE(cmap + 8 + i * 8);
    if (buf.readUInt16BE(offset) !== 4) continue;
    if ((platform === 3 && encoding === 1) || platform === 0) {
      sub = offset;
      break;
    }
  }
  if (sub < 0) throw new Error('font has no Unicode BMP cmap');
  const segX2 = buf.readUInt16BE(sub + 6);
  const ends = sub + 14;
  const starts = ends + segX2 + 2;
  const deltas = starts + segX2;
  const rangeOffsets = deltas + segX2;
  const widths = new Map<number, number>();
  for (let s = 0; s < segX2 / 2; s++) {
    const end = buf.readUInt16BE(ends + s * 2);
    const start = buf.readUInt16BE(starts + s * 2);
    const delta = buf.readInt16BE(deltas + s * 2);
    const ro = buf.readUInt16BE(rangeOffsets + s * 2);
    if (start === 0xffff) continue;
    for (let c = start; c <= end; c++) {
      let glyph: number;
      if (ro === 0) glyph = (c + delta) & 0xffff;
      else {
        const at = rangeOffsets + s * 2 + ro + (c - start) * 2;
        glyph = buf.readUInt16BE(at);
        if (glyph !== 0) glyph = (glyph + delta) & 0xffff;
      }
      if (glyph !== 0) widths.set(c, advance(glyph) / unitsPerEm);
    }
  }
  return { widths, fallback: advance(0) / unitsPerEm };
}

/** Width in pixels of `text` at `size` px. */
export function textWidth(metrics: FontMetrics, text: string, size: number): number {
  let em = 0;
  for (const ch of text) em += metrics.widths.get(ch.codePointAt(0) ?? 0) ?? metrics.fallback;
  return em * size;
}

/** A measureText for zrender: CSS font shorthand (`bold 16px DejaVu Sans`) -> { width }. */
export function makeMeasureText(
  regular: FontMetrics,
  bold: FontMetrics,
): (text: string, font?: string) => { width: number } {
  return (text, font) => {
    const f = font ?? '12px sans-serif';
    const size = Number(/(\d+(?:\.\d+)?)px/.exec(f)?.[1] ?? 12);
    const isBold = /\bbold(er)?\b|\b[6-9]00\b/.test(f);
    return { width: textWidth(isBold ? bold : regular, text ?? '', size) };
  };
}
