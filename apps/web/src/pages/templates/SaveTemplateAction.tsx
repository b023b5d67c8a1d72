import { lazy, Suspense, useState } from 'react';
import type { RunResult } from '../../lib/api.ts';
import { Link } from '../../lib/router.tsx';
import { Button } from '../../components/ui.tsx';

// The dialog is fetched the first time it is opened.
const SaveTemplateDialog = lazy(() => import('./SaveTemplateDialog.tsx'));

/** A run can be saved when it succeeded from a plan (a style turn planned nothing) and its connection is still there. */
export function canSaveAsTemplate(run: RunResult): boolean {
  return (
    run.status === 'succeeded' &&
    run.query_spec !== null &&
    run.planner !== 'style' &&
    run.connection_id !== null
  );
}

/** "Save as template" on an answer: opens the dialog, then says where the saved question is. */
export function SaveTemplateAction({ run }: { run: RunResult }) {
  const [open, setOpen] = useState(false);
  const [savedName, setSavedName] = useState<string | null>(null);
  const spec = run.query_spec;
  const connectionId = run.connection_id;
  if (!canSaveAsTemplate(run) || !spec || !connectionId) return null;
  return (
    <>
      {savedName ? (
        <span className="muted small" role="status">
          Saved as “{savedName}” ·{' '}
          <Link to={`/ask?connection=${encodeURIComponent(connectionId)}`}>Saved questions</Link>
        </span>
      ) : null}
      <Button
        size="sm"
        variant="ghost"
        onClick={() => setOpen(true)}
        aria-label={`Save as template: “${run.question}”`}
        title="Keep this question with its query, with values that can change"
      >
        ☆ Save as template
      </Button>
      {open ? (
        <Suspense fallback={null}>
          <SaveTemplateDialog
            run={run}
            spec={spec}
            connectionId={connectionId}
            onClose={() => setOpen(false)}
            onSaved={(template) => {
              setSavedName(template.name);
              setOpen(false);
            }}
          />
        </Suspense>
      ) : null}
    </>
  );
}
