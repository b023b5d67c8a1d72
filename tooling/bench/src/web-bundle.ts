/**
 * Web bundle: builds apps/web (vite build) and prints the size of what a first visit loads (the
 * entry script, its statically imported chunks and the stylesheet, as referenced by dist/index.html)
 * against the ECharts chunk, which loads only when the first chart appears. Raw and gzip bytes;
 * the initial JavaScript is printed as a ratio of the 250 KB gzip budget. ~3 s (the build).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { repoRoot } from './processes.ts';

const webDir = join(repoRoot, 'apps', 'web');
const distDir = join(webDir, 'dist');
const BUDGET_GZIP = 250_000;

interface Sized {
  file: string;
  raw: number;
  gzip: number;
}

function sizeOf(file: string): Sized {
  const bytes = readFileSync(join(distDir, file));
  return { file, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}

function kb(n: number): string {
  return `${(n / 1000).toFixed(1)} KB`;
}

function sum(items: Sized[]): { raw: number; gzip: number } {
  return items.reduce((acc, s) => ({ raw: acc.raw + s.raw, gzip: acc.gzip + s.gzip }), { raw: 0, gzip: 0 });
}

/** Static imports of a chunk (`import ... from "./x.js"` / `import "./x.js"`), transitively. */
function staticClosure(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(distDir, file), 'utf8');
    for (const m of text.matchAll(/(?:^|[;\s}])import\s*(?:[\w${},*\s]+from\s*)?["'](\.\/[^"']+\.js)["']/g)) {
      const target = join('assets', (m[1] ?? '').slice(2));
      if (existsSync(join(distDir, target))) visit(target);
    }
  };
  visit(entry);
  return [...seen];
}

export async function benchWebBundle(): Promise<void> {
  const started = performance.now();
  const build = spawnSync('npm', ['run', 'build', '-s', '-w', '@aqs/web'], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  if (build.status !== 0) throw new Error(`web build failed:\n${build.stdout}\n${build.stderr}`);
  const buildMs = performance.now() - started;

  const html = readFileSync(join(distDir, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/<script[^>]+src="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1] ?? '');
  const preloads = [...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="\/(assets\/[^"]+\.js)"/g)].map(
    (m) => m[1] ?? '',
  );
  const styles = [...html.matchAll(/<link[^>]+rel="stylesheet"[^>]+href="\/(assets\/[^"]+\.css)"/g)].map(
    (m) => m[1] ?? '',
  );
  const initialJs = [...new Set([...scripts.flatMap(staticClosure), ...preloads])];
  const allJs = readdirSync(join(distDir, 'assets'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => join('assets', f));
  const lazy = allJs.filter((f) => !initialJs.includes(f));
  const echartsChunks = lazy.filter(
    (f) => /echarts/i.test(f) || readFileSync(join(distDir, f), 'utf8').includes('echarts'),
  );

  const js = initialJs.map(sizeOf);
  const css = styles.map(sizeOf);
  const charts = echartsChunks.map(sizeOf);
  const jsTotal = sum(js);
  const cssTotal = sum(css);
  const chartTotal = sum(charts);

  console.log(`build (vite)                  ${(buildMs / 1000).toFixed(1)} s, ${allJs.length} JS chunks`);
  for (const s of js)
    console.log(
      `initial JS   ${s.file.padEnd(34)} ${kb(s.raw).padStart(10)} raw ${kb(s.gzip).padStart(10)} gzip`,
    );
  for (const s of css)
    console.log(
      `initial CSS  ${s.file.padEnd(34)} ${kb(s.raw).padStart(10)} raw ${kb(s.gzip).padStart(10)} gzip`,
    );
  for (const s of charts)
    console.log(
      `lazy ECharts ${s.file.padEnd(34)} ${kb(s.raw).padStart(10)} raw ${kb(s.gzip).padStart(10)} gzip`,
    );
  console.log(
    `initial JS total              ${kb(jsTotal.raw).padStart(10)} raw ${kb(jsTotal.gzip).padStart(10)} gzip  = ${(jsTotal.gzip / BUDGET_GZIP).toFixed(2)}x the 250 KB gzip budget`,
  );
  console.log(
    `initial JS + CSS              ${kb(jsTotal.raw + cssTotal.raw).padStart(10)} raw ${kb(jsTotal.gzip + cssTotal.gzip).padStart(10)} gzip  = ${((jsTotal.gzip + cssTotal.gzip) / BUDGET_GZIP).toFixed(2)}x the budget`,
  );
  console.log(
    `ECharts chunk (on demand)     ${kb(chartTotal.raw).padStart(10)} raw ${kb(chartTotal.gzip).padStart(10)} gzip  = ${(chartTotal.gzip / Math.max(1, jsTotal.gzip)).toFixed(2)}x the initial JS`,
  );
  if (charts.length === 0)
    console.log('WARNING: no separate ECharts chunk found: is it imported statically?');
  if (initialJs.some((f) => echartsChunks.includes(f)))
    console.log('WARNING: ECharts is part of the initial load.');
  if (jsTotal.gzip > BUDGET_GZIP)
    console.log('WARNING: the initial JavaScript is over the 250 KB gzip budget.');
  if (!statSync(join(distDir, 'index.html')).isFile()) throw new Error('no dist/index.html');
}
