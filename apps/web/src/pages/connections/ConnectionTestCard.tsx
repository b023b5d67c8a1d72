import { Button, ErrorNote } from '../../components/ui.tsx';
import type { useConnectionActions } from './hooks.ts';
import { TestResultView } from './TestResultView.tsx';

/** Runs the connection test and shows its checks. */
export function ConnectionTestCard({
  connectionId,
  test,
}: {
  connectionId: string;
  test: ReturnType<typeof useConnectionActions>['test'];
}) {
  return (
    <section className="card test-card" aria-labelledby="test-heading">
      <div className="row space-between">
        <div>
          <h2 id="test-heading">Connection test</h2>
          <p className="muted small">
            Checks reachability, TLS, credentials, the query endpoint, privileges and scope.
          </p>
        </div>
        <Button variant="primary" onClick={() => test.mutate(connectionId)} busy={test.isPending}>
          {test.isPending ? 'Testing…' : 'Test connection'}
        </Button>
      </div>
      {test.data ? <TestResultView result={test.data} /> : null}
      <ErrorNote error={test.error} />
    </section>
  );
}
