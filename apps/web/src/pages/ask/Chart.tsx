import { useEffect, useRef, useState } from 'react';
import type { ChartInstance, mountChart } from '../../lib/echarts.ts';

let loading: Promise<{ mountChart: typeof mountChart }> | undefined;
/** ECharts is fetched once, when the first chart is shown. */
const loadCharts = () => (loading ??= import('../../lib/echarts.ts'));

function titleOf(option: Record<string, unknown>): string | undefined {
  const title = option.title;
  const first = Array.isArray(title) ? title[0] : title;
  if (first && typeof first === 'object' && 'text' in first && typeof first.text === 'string')
    return first.text;
  return undefined;
}

export function Chart({
  option,
  chartType,
  label,
}: {
  option: Record<string, unknown>;
  chartType: string;
  label: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<'loading' | 'ready' | 'error'>('loading');
  useEffect(() => {
    let chart: ChartInstance | undefined;
    let observer: ResizeObserver | undefined;
    let cancelled = false;
    loadCharts().then(
      (mod) => {
        if (cancelled || !ref.current) return;
        chart = mod.mountChart(ref.current, option);
        observer = new ResizeObserver(() => chart?.resize());
        observer.observe(ref.current);
        setState('ready');
      },
      () => {
        loading = undefined;
        if (!cancelled) setState('error');
      },
    );
    return () => {
      cancelled = true;
      observer?.disconnect();
      chart?.dispose();
    };
  }, [option]);
  const title = titleOf(option) ?? label;
  return (
    <figure className="chart-figure">
      <div
        ref={ref}
        className="chart"
        role="img"
        aria-label={`${chartType} chart: ${title}. The same data is in the table below.`}
      />
      {state === 'loading' ? <div className="chart-overlay muted">Loading chart…</div> : null}
      {state === 'error' ? (
        <div className="chart-overlay text-danger">
          The chart library could not be loaded. Reload the page to try again.
        </div>
      ) : null}
    </figure>
  );
}
