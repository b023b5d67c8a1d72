import { useState } from 'react';
import type { ChartStyle } from '@aqs/contracts';
import type { RunResult } from '../../lib/api.ts';
import { AnswerTools } from './AnswerTools.tsx';
import { Chart } from './Chart.tsx';
import { DataTable } from './DataTable.tsx';

/**
 * A run's result: its chart or its table, with a switch between them when there are both, and its
 * downloads. `previewStyle` draws the chart in an unsaved style.
 */
export function RunArtifacts({ run, previewStyle }: { run: RunResult; previewStyle?: ChartStyle | null }) {
  const table = run.artifacts.find((a) => a.kind === 'table');
  const chart = run.artifacts.find((a) => a.kind === 'chart');
  const [view, setView] = useState<'chart' | 'table'>('chart');
  return (
    <>
      {chart && table ? <ViewSwitch view={view} onView={setView} /> : null}

      {chart && (view === 'chart' || !table) ? (
        <Chart
          option={chart.option}
          chartType={chart.chart_type}
          label={run.question}
          previewStyle={previewStyle}
        />
      ) : null}
      {table && (!chart || view === 'table') ? (
        <DataTable
          columns={table.columns}
          rows={table.rows}
          truncated={table.truncated}
          caption={`Result of “${run.question}”`}
        />
      ) : null}
      {chart && table && view === 'chart' ? (
        <p className="muted small">
          {table.row_count.toLocaleString()} row{table.row_count === 1 ? '' : 's'}
          {table.truncated ? ' (capped)' : ''} ·{' '}
          <button type="button" className="link-button" onClick={() => setView('table')}>
            show the table
          </button>
        </p>
      ) : null}
      <AnswerTools run={run} />
    </>
  );
}

function ViewSwitch({
  view,
  onView,
}: {
  view: 'chart' | 'table';
  onView: (view: 'chart' | 'table') => void;
}) {
  return (
    <div className="view-switch" role="tablist" aria-label="Result view">
      <button
        type="button"
        role="tab"
        aria-selected={view === 'chart'}
        className={view === 'chart' ? 'active' : ''}
        onClick={() => onView('chart')}
      >
        Chart
      </button>
      <button
        type="button"
        role="tab"
        aria-selected={view === 'table'}
        className={view === 'table' ? 'active' : ''}
        onClick={() => onView('table')}
      >
        Table
      </button>
    </div>
  );
}
