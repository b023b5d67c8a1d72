import type { AuthMode } from '../../lib/api.ts';
import { Badge } from '../../components/ui.tsx';

/** The authentication method of the chosen engine, as radio cards. */
export function AuthModePicker({
  modes,
  modeId,
  error,
  onChoose,
}: {
  modes: AuthMode[];
  modeId: string;
  error: string | undefined;
  onChoose: (modeId: string) => void;
}) {
  return (
    <fieldset className="fieldset">
      <legend>Authentication</legend>
      <div className="mode-grid">
        {modes.map((m) => (
          <label key={m.id} className={`mode-option${m.id === modeId ? ' checked' : ''}`}>
            <input
              type="radio"
              name="auth_mode"
              value={m.id}
              checked={m.id === modeId}
              onChange={() => onChoose(m.id)}
            />
            <span className="mode-name">
              {m.name} {m.recommended ? <Badge tone="success">Recommended</Badge> : null}
            </span>
            <span className="muted small">{m.description}</span>
          </label>
        ))}
      </div>
      {error ? <p className="field-error">{error}</p> : null}
    </fieldset>
  );
}
