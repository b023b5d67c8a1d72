import { fieldError, type Connection, type Dialect } from '../../lib/api.ts';
import { Link, navigate } from '../../lib/router.tsx';
import { useIsOwner } from '../../lib/account.ts';
import { Button, Callout, ErrorNote, Field, PageHeader, Spinner } from '../../components/ui.tsx';
import { AuthModePicker } from './AuthModePicker.tsx';
import { ModeSettings } from './ModeSettings.tsx';
import { ConnectionTestCard } from './ConnectionTestCard.tsx';
import { DialectPicker } from './DialectPicker.tsx';
import { useConnection, useDialects } from './hooks.ts';
import { useConnectionForm, type ConnectionFormState } from './useConnectionForm.ts';
import { SavedQuestions } from '../templates/SavedQuestions.tsx';

export function ConnectionFormPage({ connectionId }: { connectionId: string | null }) {
  const dialects = useDialects();
  const existing = useConnection(connectionId);
  if (dialects.isPending || (connectionId && existing.isPending))
    return <Spinner label="Loading the form…" />;
  if (dialects.error || existing.error) {
    return (
      <div className="page">
        <ErrorNote error={dialects.error ?? existing.error} title="The form could not be loaded" />
        <Link to="/connections">Back to connections</Link>
      </div>
    );
  }
  return <ConnectionForm key={connectionId ?? 'new'} dialects={dialects.data} connection={existing.data} />;
}

function ConnectionForm({
  dialects,
  connection,
}: {
  dialects: Dialect[];
  connection: Connection | undefined;
}) {
  const form = useConnectionForm(dialects, connection);
  const created = new URLSearchParams(window.location.search).get('created') === '1';
  // A member tests a connection and runs its saved questions; its settings are the owner's.
  const owner = useIsOwner();
  return (
    <div className="page page-narrow">
      <ConnectionFormHeader connection={connection} />
      {!owner ? (
        <Callout tone="info">
          <p>
            Only the workspace&apos;s owner adds or changes connections.{' '}
            {connection ? 'You can test this one and ask it questions.' : null}{' '}
            <Link to="/connections">Back to connections</Link>
          </p>
        </Callout>
      ) : null}
      {connection && created && form.save.isIdle ? (
        <Callout tone="success">
          Connection saved. Test it to check reachability, TLS, credentials and privileges.
        </Callout>
      ) : null}
      {connection ? <ConnectionTestCard connectionId={connection.id} test={form.test} /> : null}
      {owner ? <ConnectionSettingsForm form={form} dialects={dialects} connection={connection} /> : null}
      {connection ? (
        <div className="card form-card">
          <SavedQuestions connection={connection} />
        </div>
      ) : null}
    </div>
  );
}

function ConnectionFormHeader({ connection }: { connection: Connection | undefined }) {
  return (
    <>
      <nav className="breadcrumb" aria-label="Breadcrumb">
        <Link to="/connections">Connections</Link> <span aria-hidden="true">/</span>{' '}
        <span>{connection ? connection.name : 'New connection'}</span>
      </nav>
      <PageHeader
        title={connection ? connection.name : 'New connection'}
        description={
          connection
            ? 'Change settings, then test the connection.'
            : 'Connect a data source. Credentials are stored encrypted and never shown again.'
        }
        actions={
          connection ? (
            <>
              <Button onClick={() => navigate(`/connections/${connection.id}/schema`)}>Browse schema</Button>
              <Button
                variant="primary"
                disabled={connection.paused}
                onClick={() => navigate(`/ask?connection=${connection.id}`)}
              >
                Ask a question
              </Button>
            </>
          ) : undefined
        }
      />
    </>
  );
}

function ConnectionSettingsForm({
  form,
  dialects,
  connection,
}: {
  form: ConnectionFormState;
  dialects: Dialect[];
  connection: Connection | undefined;
}) {
  const { save } = form;
  const editing = connection !== undefined;
  return (
    <form
      className="card form-card stack"
      onSubmit={form.submit}
      noValidate
      aria-label={editing ? 'Connection settings' : 'New connection'}
    >
      <ErrorNote error={form.topLevelError} title="The connection was not saved" />
      {save.isSuccess && editing ? <Callout tone="success">Saved.</Callout> : null}

      <DialectPicker
        dialects={dialects}
        dialectId={form.dialectId}
        editing={editing}
        error={fieldError(save.error, 'dialect')}
        onChoose={form.chooseDialect}
      />

      <Field label="Name" error={fieldError(save.error, 'name')}>
        {(p) => (
          <input
            {...p}
            type="text"
            required
            maxLength={120}
            value={form.name}
            onChange={(e) => form.setName(e.target.value)}
            placeholder="Production analytics"
          />
        )}
      </Field>

      <AuthenticationSettings form={form} connection={connection} />

      <Field
        label="Tags"
        help="Comma-separated, e.g. production, team-web. Filter the connection list by tag."
        error={fieldError(save.error, 'tags')}
      >
        {(p) => (
          <input
            {...p}
            type="text"
            value={form.tags}
            onChange={(e) => form.setTags(e.target.value)}
            placeholder="production, logs"
          />
        )}
      </Field>

      <div className="row gap form-actions">
        <Button type="submit" variant="primary" busy={save.isPending}>
          {editing ? 'Save changes' : 'Create connection'}
        </Button>
        <Link to="/connections" className="btn btn-ghost">
          Cancel
        </Link>
      </div>
    </form>
  );
}

/** How to connect: the auth method (when the engine has several), its warning and its settings. */
function AuthenticationSettings({
  form,
  connection,
}: {
  form: ConnectionFormState;
  connection: Connection | undefined;
}) {
  const { dialect, mode, save } = form;
  return (
    <>
      {dialect && dialect.auth_modes.length > 1 ? (
        <AuthModePicker
          modes={dialect.auth_modes}
          modeId={form.modeId}
          error={fieldError(save.error, 'auth_mode')}
          onChoose={form.chooseMode}
        />
      ) : null}
      {mode?.warning ? (
        <Callout tone="warning" title="Development only">
          <p>{mode.warning}</p>
        </Callout>
      ) : null}

      {mode ? (
        <ModeSettings
          mode={mode}
          values={form.values}
          set={form.setValue}
          connection={connection}
          saveError={save.error}
        />
      ) : null}
    </>
  );
}
