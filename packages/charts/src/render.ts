/**
 * Server-side rendering of an ECharts option to SVG (ECharts' SSR renderer) or PNG (that SVG
 * rasterised by resvg). ECharts is loaded once, on the first render; resvg gets the DejaVu Sans
 * TTF files shipped by the `dejavu-fonts-ttf` npm package, since it reads no system fonts here and
 * text would silently disappear without a font. Nothing is fetched at run time.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Resvg from '@resvg/resvg-js';
import { makeMeasureText, readFontMetrics } from './font-metrics.ts';

export type RenderFormat = 'svg' | 'png';

export interface RenderOptions {
  format: RenderFormat;
  /** Pixels; default 800, 100..4000. */
  width?: number;
  /** Pixels; default 500, 100..4000. */
  height?: number;
}

export const RENDER_DEFAULTS = { width: 800, height: 500, min: 100, max: 4000 } as const;
export const FONT_FAMILY = 'DejaVu Sans';
/** The family written into options and SVG: viewers without DejaVu get a similarly wide face. */
export const FONT_STACK = "'DejaVu Sans', Verdana, sans-serif";

const require = createRequire(import.meta.url);

/** The few parts of the ECharts API used here (the bundle is loaded untyped, see loadEcharts). */
interface EchartsInstance {
  setOption(option: Record<string, unknown>): void;
  renderToSVGString(): string;
  getZr(): {
    painter: {
      renderToString(opts: { cssEmphasis: boolean; cssAnimation: boolean; useViewBox: boolean }): string;
    };
  };
  dispose(): void;
}
interface EchartsModule {
  setPlatformAPI(api: { measureText: (text: string, font?: string) => { width: number } }): void;
  init(
    dom: null,
    theme: null,
    opts: { renderer: 'svg'; ssr: true; width: number; height: number },
  ): EchartsInstance;
}

let echartsModule: EchartsModule | null = null;

/**
 * Loads ECharts once. The package's CommonJS entry is its prebuilt single-file bundle, which loads
 * in ~0.1 s, against ~0.5 s for its many-file ES module build.
 */
export function loadEcharts(): EchartsModule {
  if (echartsModule) return echartsModule;
  const echarts = require('echarts') as EchartsModule;
  const [regular, bold] = chartFontFiles() as [string, string];
  // Lay text out with the metrics of the font resvg draws it with (see font-metrics.ts).
  echarts.setPlatformAPI({ measureText: makeMeasureText(readFontMetrics(regular), readFontMetrics(bold)) });
  echartsModule = echarts;
  return echarts;
}

let fontFiles: string[] | null = null;

/** Absolute paths of the TTF files handed to resvg (DejaVu Sans regular and bold). */
export function chartFontFiles(): string[] {
  if (fontFiles) return fontFiles;
  const files = ['dejavu-fonts-ttf/ttf/DejaVuSans.ttf', 'dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf'].map((f) =>
    require.resolve(f),
  );
  for (const f of files)
    if (!existsSync(f)) throw new Error(`Chart font missing: ${f} (install the dejavu-fonts-ttf package)`);
  fontFiles = files;
  return files;
}

function dimension(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < RENDER_DEFAULTS.min || v > RENDER_DEFAULTS.max) {
    throw new RangeError(`${name} must be an integer from ${RENDER_DEFAULTS.min} to ${RENDER_DEFAULTS.max}`);
  }
  return v;
}

/** Renders the option to an SVG document. */
export function renderSvg(option: Record<string, unknown>, width: number, height: number): string {
  const echarts = loadEcharts();
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption({
      backgroundColor: '#ffffff',
      ...option,
      animation: false,
      textStyle: { fontFamily: FONT_STACK, ...(isObj(option.textStyle) ? option.textStyle : {}) },
    });
    // What chart.renderToSVGString() does, without the hover styles: their class names come from a
    // process-wide counter (so no two renders were equal), and a static image needs none.
    const zr = chart.getZr();
    const svg = zr.painter.renderToString({ cssEmphasis: false, cssAnimation: false, useViewBox: true });
    return withStableIds(svg);
  } finally {
    chart.dispose();
  }
}

/**
 * ECharts names the clip paths and patterns of an SVG after its painter (`zr12-c0`), a number that
 * rises with every render. They are renamed after the document itself, so the same option gives the
 * same bytes, and two different charts inlined in one page still do not share an id. Only attribute
 * values are touched (`id="zr12-`, `url(#zr12-`): text in the chart has its quotes escaped.
 */
function withStableIds(svg: string): string {
  const placeholder = svg.replace(/="(url\(#)?zr\d+-/g, '="$1zr-');
  if (placeholder === svg) return svg;
  const name = createHash('sha256').update(placeholder).digest('hex').slice(0, 12);
  return placeholder.replace(/="(url\(#)?zr-/g, `="$1c${name}-`);
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

type ResvgModule = typeof Resvg;
let resvgModule: ResvgModule | null = null;

function loadResvg(): ResvgModule {
  resvgModule ??= require('@resvg/resvg-js') as ResvgModule;
  return resvgModule;
}

/** Rasterises an SVG document to PNG with the bundled font (off the main thread). */
export async function svgToPng(svg: string): Promise<Buffer> {
  const options: Resvg.ResvgRenderOptions = {
    fitTo: { mode: 'original' },
    font: {
      fontFiles: chartFontFiles(),
      loadSystemFonts: false,
      defaultFontFamily: FONT_FAMILY,
      sansSerifFamily: FONT_FAMILY,
      serifFamily: FONT_FAMILY,
      monospaceFamily: FONT_FAMILY,
    },
    logLevel: 'off',
  };
  const image = await loadResvg().renderAsync(svg, options);
  return image.asPng();
}

/**
 * Renders an option to SVG (a string) or PNG (a Buffer). The chart instance is always disposed.
 * Animation is forced off and a white background is the default.
 */
export async function renderChart(
  option: Record<string, unknown>,
  options: RenderOptions & { format: 'svg' },
): Promise<string>;
export async function renderChart(
  option: Record<string, unknown>,
  options: RenderOptions & { format: 'png' },
): Promise<Buffer>;
export async function renderChart(
  option: Record<string, unknown>,
  options: RenderOptions,
): Promise<Buffer | string>;
export async function renderChart(
  option: Record<string, unknown>,
  options: RenderOptions,
): Promise<Buffer | string> {
  const width = dimension(options.width, RENDER_DEFAULTS.width, 'width');
  const height = dimension(options.height, RENDER_DEFAULTS.height, 'height');
  if (options.format !== 'svg' && options.format !== 'png') throw new RangeError('format must be svg or png');
  const svg = renderSvg(option, width, height);
  return options.format === 'svg' ? svg : svgToPng(svg);
}
