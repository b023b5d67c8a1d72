import { lazy, Suspense, useRef, useState } from 'react';
import type { RunResult } from '../../lib/api.ts';
import { Link } from '../../lib/router.tsx';
import { Button } from '../../components/ui.tsx';
import type { Pinned } from './PinDialog.tsx';

// The dialog is fetched the first time it is opened.
const PinDialog = lazy(() => import('./PinDialog.tsx'));

/** "Add to dashboard" under an answer that has a query to run again. */
export function PinAction({ run }: { run: RunResult }) {
  const [open, setOpen] = useState(false);
  const [pinned, setPinned] = useState<Pinned | null>(null);
  const button = useRef<HTMLButtonElement>(null);
  // The dialog goes away with its focus: it comes back to the button that opened it.
  const close = () => {
    setOpen(false);
    requestAnimationFrame(() => button.current?.focus());
  };
  if (run.status !== 'succeeded' || !run.query || run.artifacts.length === 0) return null;
  return (
    <>
      <Button
        ref={button}
        size="sm"
        variant="ghost"
        onClick={() => setOpen(true)}
        aria-label={`Add “${run.question}” to a dashboard`}
        title="Pin this answer on a dashboard, where it refreshes with the others"
      >
        + Add to dashboard
      </Button>
      {pinned ? (
        <span className="muted small" role="status">
          Pinned to{' '}
          <Link to={`/dashboards/${encodeURIComponent(pinned.dashboardId)}`}>“{pinned.dashboardName}”</Link>
        </span>
      ) : null}
      {open ? (
        <Suspense fallback={null}>
          <PinDialog
            run={run}
            onClose={close}
            onPinned={(result) => {
              setPinned(result);
              close();
            }}
          />
        </Suspense>
      ) : null}
    </>
  );
}
