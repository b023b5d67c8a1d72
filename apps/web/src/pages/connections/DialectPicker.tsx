import type { Dialect } from '../../lib/api.ts';
import { Badge } from '../../components/ui.tsx';

/** The data source type: the available engines as radio cards, the coming ones listed disabled. */
export function DialectPicker({
  dialects,
  dialectId,
  editing,
  error,
  onChoose,
}: {
  dialects: Dialect[];
  dialectId: string;
  editing: boolean;
  error: string | undefined;
  onChoose: (dialect: Dialect) => void;
}) {
  return (
    <fieldset className="fieldset">
      <legend>Data source</legend>
      <div role="radiogroup" aria-label="Data source type">
        <div className="dialect-grid">
          {dialects
            .filter((d) => d.availability === 'available')
            .map((d) => (
              <DialectOption
                key={d.id}
                dialect={d}
                checked={d.id === dialectId}
                editing={editing}
                onChoose={() => onChoose(d)}
              />
            ))}
        </div>
        {dialects.some((d) => d.availability !== 'available') ? (
          <ComingDialects dialects={dialects.filter((d) => d.availability !== 'available')} />
        ) : null}
      </div>
      {error ? <p className="field-error">{error}</p> : null}
    </fieldset>
  );
}

function DialectOption({
  dialect: d,
  checked,
  editing,
  onChoose,
}: {
  dialect: Dialect;
  checked: boolean;
  editing: boolean;
  onChoose: () => void;
}) {
  return (
    <label className={`dialect-option${checked ? ' checked' : ''}${editing && !checked ? ' disabled' : ''}`}>
      <input
        type="radio"
        name="dialect"
        value={d.id}
        checked={checked}
        disabled={editing}
        onChange={onChoose}
      />
      <span className="dialect-name">
        <span className="dialect-dot" style={{ background: d.color }} aria-hidden="true" />
        {d.name}
      </span>
      <span className="muted small">Queried with {d.query_language}</span>
    </label>
  );
}

function ComingDialects({ dialects }: { dialects: Dialect[] }) {
  return (
    <div className="coming">
      <Badge>Coming</Badge>
      {dialects.map((d) => (
        <label key={d.id} className="coming-item" title={d.availability_note ?? 'Not available yet'}>
          <input type="radio" name="dialect" value={d.id} disabled aria-describedby={`coming-${d.id}`} />
          {d.name}
          <span id={`coming-${d.id}`} className="visually-hidden">
            {d.availability_note ?? 'Not available yet'}
          </span>
        </label>
      ))}
    </div>
  );
}
