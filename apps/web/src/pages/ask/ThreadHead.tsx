import type { Connection } from '../../lib/api.ts';
import { Link } from '../../lib/router.tsx';
import { Button } from '../../components/ui.tsx';

/** The top of the thread: in a new one, which connection to ask; in a conversation, its title and connection. */
export function ThreadHead(props: {
  newThread: boolean;
  title: string | undefined;
  connectionDeleted: boolean;
  connections: Connection[];
  connection: Connection | undefined;
  onChoose: (connectionId: string) => void;
  running: boolean;
  /** Opens or closes the chart style panel; absent when the conversation has no chart. */
  onStyle?: () => void;
  styling: boolean;
}) {
  const { newThread, title, connectionDeleted, connections, connection, onChoose, running } = props;
  const { onStyle, styling } = props;
  return (
    <div className="thread-head">
      {newThread ? (
        <div className="connection-picker">
          <h1 className="visually-hidden">Ask a question</h1>
          <label htmlFor="ask-connection">Ask</label>
          <select
            id="ask-connection"
            value={connection?.id ?? ''}
            onChange={(e) => onChoose(e.target.value)}
            disabled={running || connections.length === 0}
          >
            {connections.length === 0 ? <option value="">No connection</option> : null}
            {connections.map((c) => (
              <option key={c.id} value={c.id} disabled={c.paused}>
                {c.name}
                {c.is_demo && !/demo/i.test(c.name) ? ' (demo)' : ''}
                {c.paused ? ' — paused' : ''}
              </option>
            ))}
          </select>
          {connection ? (
            <Link to={`/connections/${connection.id}/schema`} className="small">
              Browse schema
            </Link>
          ) : null}
        </div>
      ) : (
        <div className="thread-title">
          <div>
            <h1>{title ?? 'Conversation'}</h1>
            <span className="muted small">
              {connection ? (
                <>
                  on <Link to={`/connections/${connection.id}/schema`}>{connection.name}</Link>
                </>
              ) : connectionDeleted ? (
                'Its connection was deleted'
              ) : null}
            </span>
          </div>
          {onStyle ? (
            <Button size="sm" onClick={onStyle} aria-expanded={styling}>
              Chart style
            </Button>
          ) : null}
        </div>
      )}
    </div>
  );
}
