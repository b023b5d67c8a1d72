import { useState } from 'react';
import type { BillingSummary } from '../lib/api.ts';
import { Link } from '../lib/router.tsx';
import { formatDay } from './ui.tsx';

interface Allowance {
  id: 'questions' | 'schema_analyses';
  noun: string;
  used: number;
  limit: number;
}

const DISMISSED = 'aqs.quota-banner-dismissed';

function dismissedKeys(): string[] {
  try {
    return JSON.parse(window.sessionStorage.getItem(DISMISSED) ?? '[]') as string[];
  } catch {
    return [];
  }
}

/**
 * Questions or AI schema analyses at 80 % of the month's allowance or more, or used up. Drawn from
 * the shell's cached billing summary: no request of its own. Dismissed for the browser session; it
 * comes back when the situation gets worse (near the limit, then used up) or a new month starts.
 */
export function QuotaBanner({ summary, canManage }: { summary: BillingSummary; canManage: boolean }) {
  const [dismissed, setDismissed] = useState(dismissedKeys);
  const allowances: Allowance[] = [
    { id: 'questions', noun: 'questions', ...summary.usage.questions },
    { id: 'schema_analyses', noun: 'AI schema analyses', ...summary.usage.schema_analyses },
  ];
  const shown = allowances.filter((a) => a.limit > 0 && a.used >= 0.8 * a.limit);
  if (shown.length === 0) return null;
  const out = (a: Allowance) => a.used >= a.limit;
  const key = [
    summary.workspace_id,
    summary.period_start,
    ...shown.map((a) => `${a.id}:${out(a) ? 'out' : 'near'}`),
  ].join('|');
  if (dismissed.includes(key)) return null;
  const exhausted = shown.some(out);
  const renews = formatDay(summary.period_end, { utc: true });
  const dismiss = () => {
    const next = [...dismissed, key];
    try {
      window.sessionStorage.setItem(DISMISSED, JSON.stringify(next));
    } catch {
      // still hidden until the page is reloaded
    }
    setDismissed(next);
    // The button goes with the banner: focus moves to the page's content.
    document.getElementById('main')?.focus();
  };
  return (
    <div
      className={`banner ${exhausted ? 'banner-danger' : 'banner-warning'}`}
      role="region"
      aria-label="Usage this month"
      aria-live="polite"
    >
      <span>
        {shown.map((a) => (
          <span key={a.id} className="banner-sentence">
            {out(a)
              ? `This workspace has used all ${a.limit.toLocaleString()} ${a.noun} of this month: more are refused until ${renews}.`
              : `This workspace has used ${a.used.toLocaleString()} of its ${a.limit.toLocaleString()} ${a.noun} this month (${Math.floor((100 * a.used) / a.limit)} %).`}{' '}
          </span>
        ))}
        {canManage ? null : <span className="muted">Only the owner can upgrade. </span>}
        <Link to="/billing">{canManage ? 'Upgrade or see usage' : 'See usage'}</Link>
      </span>
      <button type="button" className="btn btn-sm btn-ghost banner-dismiss" onClick={dismiss}>
        Dismiss<span className="visually-hidden"> the usage warning</span>
      </button>
    </div>
  );
}
