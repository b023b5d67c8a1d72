import type { Readable } from 'node:stream';
import type { ArtifactRenderQuery, DownloadFormat } from '@aqs/contracts';
import { renderChart } from '@aqs/charts';
import { DomainError } from '../errors.ts';
import type { CoreDeps } from '../ports.ts';
import type { Principal } from '../principal.ts';
import { csvStream } from './csv.ts';
import { downloadFilename } from './filename.ts';
import { RenderCache } from './render-cache.ts';
import {
  loadOwnedArtifact,
  loadRunArtifact,
  reexecute,
  styledChart,
  tableOf,
  type OwnedArtifact,
  type TablePayload,
} from './service.ts';

/** A file to send: its name (made from the question), its type, and its bytes or a stream of them. */
export interface FileResponse {
  filename: string;
  contentType: string;
  body: string | Buffer | Readable;
}

const CONTENT_TYPES: Record<DownloadFormat, string> = {
  csv: 'text/csv; charset=utf-8; header=present',
  json: 'application/json; charset=utf-8',
  png: 'image/png',
  svg: 'image/svg+xml; charset=utf-8',
};

/** The size a chart downloads at (render takes any size). */
export const DOWNLOAD_SIZE = { width: 800, height: 500 } as const;

const renders = new RenderCache(32 * 1024 * 1024);

/**
 * Renders at once per instance: SVG layout runs on the event loop and PNG rasterising on libuv's
 * small thread pool (shared with DNS lookups and password hashing), so they wait their turn.
 */
const MAX_CONCURRENT_RENDERS = 2;
let rendering = 0;
const waiting: (() => void)[] = [];

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  // A finished render hands its slot straight to the next in line.
  if (rendering >= MAX_CONCURRENT_RENDERS) await new Promise<void>((go) => waiting.push(go));
  else rendering += 1;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else rendering -= 1;
  }
}

/** A file named after the question it answers. */
export function namedFile<B extends FileResponse['body']>(
  question: string,
  format: DownloadFormat,
  body: B,
): FileResponse & { body: B } {
  return { filename: downloadFilename(question, format), contentType: CONTENT_TYPES[format], body };
}

/**
 * An ECharts option drawn as PNG or SVG, cached under `key` (which must name everything the
 * option depends on) and waiting its turn behind the renders already running.
 */
export function renderOption(
  key: string,
  option: Record<string, unknown>,
  size: { format: 'png' | 'svg'; width: number; height: number },
): Promise<string | Buffer> {
  return renders.get(`${key}:${size.format}:${size.width}x${size.height}`, () =>
    inTurn(() => renderChart(option, { format: size.format, width: size.width, height: size.height })),
  );
}

function fieldError(field: string, message: string): DomainError {
  return new DomainError('validation', message, { fields: [{ field, message }] });
}

/**
 * Renders a chart artifact with its conversation's style and the shipped font. Equal inputs give
 * equal bytes, and renders are cached by (artifact version, style version, format, size, theme).
 */
export async function renderArtifact(
  deps: CoreDeps,
  principal: Principal,
  artifactId: string,
  query: ArtifactRenderQuery,
): Promise<FileResponse & { body: string | Buffer }> {
  return renderOwned(deps, await loadOwnedArtifact(deps.db, principal, artifactId), query);
}

/** The render cache key of an artifact's chart: it changes with the artifact's data and its style. */
function artifactRenderKey(owned: OwnedArtifact, styleVersion: number, theme: string | undefined): string {
  return ['artifact', owned.artifact.id, owned.artifact.version, styleVersion, theme ?? ''].join(':');
}

async function renderOwned(
  deps: CoreDeps,
  owned: OwnedArtifact,
  query: ArtifactRenderQuery,
): Promise<FileResponse & { body: string | Buffer }> {
  const artifactId = owned.artifact.id;
  if (owned.artifact.kind !== 'chart')
    throw fieldError(
      'artifact_id',
      `Artifact ${artifactId} is a table, which has no chart to render: download it as CSV at GET /api/v1/runs/${owned.run.id}/artifacts/${artifactId}/csv.`,
    );
  const { option, styleVersion } = await styledChart(deps.db, owned, query.theme);
  const body = await renderOption(artifactRenderKey(owned, styleVersion, query.theme), option, query);
  return namedFile(owned.run.question, query.format, body);
}

/** A table or a chart to download: an artifact, or a dashboard item's own copy. */
export interface Downloadable {
  question: string;
  kind: 'table' | 'chart';
  /** The rows: a table's own, or those a chart is drawn from. */
  rows: () => Promise<TablePayload>;
  /** A chart's option as it is drawn, and the render cache key naming everything it depends on. */
  chart: () => Promise<{ option: Record<string, unknown>; renderKey: string }>;
  /** Where a chart's CSV is when it is not given here (null: a chart downloads its rows as CSV). */
  chartCsvElsewhere: string | null;
}

/**
 * A table as CSV (default) or JSON (`{columns, rows}`); a chart as PNG (default, 800x500), SVG, JSON
 * (its option) or, where allowed, the CSV of its rows. Another combination is a 422 naming `format`.
 */
export async function downloadOf(
  subject: Downloadable,
  format: DownloadFormat | undefined,
): Promise<FileResponse> {
  const { question } = subject;
  const chosen = format ?? (subject.kind === 'table' ? 'csv' : 'png');
  if (subject.kind === 'table' && (chosen === 'png' || chosen === 'svg'))
    throw fieldError('format', `A table downloads as csv or json, not ${chosen}; only a chart has an image.`);
  if (subject.kind === 'chart' && chosen === 'csv' && subject.chartCsvElsewhere)
    throw fieldError('format', subject.chartCsvElsewhere);
  if (chosen === 'csv') {
    const { columns, rows } = await subject.rows();
    return namedFile(question, 'csv', csvStream(columns, rows));
  }
  if (subject.kind === 'table') {
    const { columns, rows } = await subject.rows();
    return namedFile(question, 'json', JSON.stringify({ columns, rows }));
  }
  const { option, renderKey } = await subject.chart();
  if (chosen === 'json') return namedFile(question, 'json', JSON.stringify(option));
  return namedFile(
    question,
    chosen,
    await renderOption(renderKey, option, { format: chosen, ...DOWNLOAD_SIZE }),
  );
}

/**
 * The artifact as a file: a table as CSV (or `json`: columns and rows), a chart as PNG (or `svg`, or
 * `json`: the styled ECharts option); a chart's rows are the run's CSV.
 */
export async function downloadArtifact(
  deps: CoreDeps,
  principal: Principal,
  artifactId: string,
  format: DownloadFormat | undefined,
): Promise<FileResponse> {
  const owned = await loadOwnedArtifact(deps.db, principal, artifactId);
  return downloadOf(
    {
      question: owned.run.question,
      kind: owned.artifact.kind,
      rows: () => tableOf(deps.db, owned),
      chart: async () => {
        const { option, styleVersion } = await styledChart(deps.db, owned);
        return { option, renderKey: artifactRenderKey(owned, styleVersion, undefined) };
      },
      chartCsvElsewhere: `A chart downloads as png, svg or json; its rows are at GET /api/v1/runs/${owned.run.id}/artifacts/${artifactId}/csv.`,
    },
    format,
  );
}

/**
 * A run's rows as CSV: from the stored rows, or with `rerun` from the run's stored query executed
 * again on the engine (not the planner). A chart artifact exports the rows it was drawn from.
 */
export async function csvExport(
  deps: CoreDeps,
  principal: Principal,
  runId: string,
  artifactId: string,
  options: { rerun: boolean; signal?: AbortSignal },
): Promise<FileResponse> {
  const owned = await loadRunArtifact(deps.db, principal, runId, artifactId);
  const table = options.rerun
    ? await reexecute(deps, principal, owned.run, options.signal)
    : await tableOf(deps.db, owned);
  return namedFile(owned.run.question, 'csv', csvStream(table.columns, table.rows));
}
