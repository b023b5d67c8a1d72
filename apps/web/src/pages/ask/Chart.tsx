import { useEffect, useMemo, useRef, useState } from 'react';
import type { ChartStyle } from '@aqs/contracts';
import type * as ChartsEntry from '../../lib/echarts.ts';
import type * as StyleEntry from '../../lib/chart-style.ts';
import type { ChartInstance } from '../../lib/echarts.ts';

type ChartsModule = typeof ChartsEntry;
type StyleModule = typeof StyleEntry;

let loadingCharts: Promise<ChartsModule> | undefined;
let loadingStyle: Promise<StyleModule> | undefined;
/** ECharts is fetched once, when the first chart is shown. */
const loadCharts = () => (loadingCharts ??= import('../../lib/echarts.ts'));
/** The style engine is fetched once, when a style is first previewed. */
const loadStyle = () => (loadingStyle ??= import('../../lib/chart-style.ts'));

function titleOf(option: Record<string, unknown>): string | undefined {
  const title = option.title;
  const first = Array.isArray(title) ? title[0] : title;
  if (first && typeof first === 'object' && 'text' in first && typeof first.text === 'string')
    return first.text;
  return undefined;
}

/** The style engine once `previewStyle` asks for it (null until it is loaded, or when there is no preview). */
function useStyleModule(previewStyle: ChartStyle | null | undefined): StyleModule | null {
  const [styleModule, setStyleModule] = useState<StyleModule | null>(null);
  useEffect(() => {
    if (!previewStyle || styleModule) return;
    let cancelled = false;
    loadStyle().then(
      (mod) => {
        if (!cancelled) setStyleModule(mod);
      },
      () => {
        loadingStyle = undefined;
      },
    );
    return () => {
      cancelled = true;
    };
  }, [previewStyle, styleModule]);
  return styleModule;
}

/**
 * A chart artifact. With `previewStyle`, the option is drawn in that (unsaved) style on this side,
 * without a request; the chart is redrawn in place as the style changes.
 */
export function Chart({
  option,
  chartType,
  label,
  previewStyle,
  dataNote = 'The same data is in the table below.',
}: {
  option: Record<string, unknown>;
  chartType: string;
  label: string;
  previewStyle?: ChartStyle | null;
  /** Where a screen reader user finds the numbers the chart draws. */
  dataNote?: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const chartRef = useRef<{ chart: ChartInstance; charts: ChartsModule } | null>(null);
  const [state, setState] = useState<'loading' | 'ready' | 'error'>('loading');
  const styleModule = useStyleModule(previewStyle);
  const previewing = Boolean(previewStyle && styleModule);
  const shown = useMemo(
    () => (previewStyle && styleModule ? styleModule.previewOption(option, previewStyle) : option),
    [option, previewStyle, styleModule],
  );
  const shownRef = useRef(shown);
  shownRef.current = shown;

  useEffect(() => {
    let observer: ResizeObserver | undefined;
    let cancelled = false;
    loadCharts().then(
      (charts) => {
        if (cancelled || !ref.current) return;
        const chart = charts.mountChart(ref.current, shownRef.current);
        chartRef.current = { chart, charts };
        observer = new ResizeObserver(() => chart.resize());
        observer.observe(ref.current);
        setState('ready');
      },
      () => {
        loadingCharts = undefined;
        if (!cancelled) setState('error');
      },
    );
    return () => {
      cancelled = true;
      observer?.disconnect();
      chartRef.current?.chart.dispose();
      chartRef.current = null;
    };
  }, [option]);

  useEffect(() => {
    const mounted = chartRef.current;
    if (mounted) mounted.charts.showOption(mounted.chart, shown);
  }, [shown]);

  const title = titleOf(shown) ?? label;
  return (
    <figure className={`chart-figure${previewing ? ' is-preview' : ''}`}>
      {previewing ? <figcaption className="chart-preview-note small">Preview (not saved)</figcaption> : null}
      <div ref={ref} className="chart" role="img" aria-label={`${chartType} chart: ${title}. ${dataNote}`} />
      {state === 'loading' ? <div className="chart-overlay muted">Loading chart…</div> : null}
      {state === 'error' ? (
        <div className="chart-overlay text-danger">
          The chart library could not be loaded. Reload the page to try again.
        </div>
      ) : null}
    </figure>
  );
}
