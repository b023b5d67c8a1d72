import {
  useEffect,
  useId,
  useRef,
  useState,
  type ButtonHTMLAttributes,
  type ReactNode,
  type Ref,
} from 'react';
import { toApiError, type DataSourceProblem } from '../lib/api.ts';

type Variant = 'primary' | 'secondary' | 'ghost' | 'danger';

export function Button({
  variant = 'secondary',
  size,
  busy,
  children,
  className,
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: Variant;
  size?: 'sm';
  busy?: boolean;
  ref?: Ref<HTMLButtonElement>;
}) {
  return (
    <button
      type="button"
      {...rest}
      className={['btn', `btn-${variant}`, size === 'sm' ? 'btn-sm' : '', className ?? ''].join(' ').trim()}
      disabled={rest.disabled || busy}
      aria-busy={busy || undefined}
    >
      {busy ? <span className="spinner spinner-inline" aria-hidden="true" /> : null}
      {children}
    </button>
  );
}

/** A file the browser downloads with the session cookie: one GET per click, no script in between. */
export function DownloadLink({
  href,
  label,
  ghost,
  children,
}: {
  href: string;
  /** The accessible name, when the visible text alone (“PNG”) does not say what is downloaded. */
  label?: string;
  ghost?: boolean;
  children: ReactNode;
}) {
  return (
    <a className={`btn btn-sm${ghost ? ' btn-ghost' : ''}`} href={href} download aria-label={label}>
      {children}
    </a>
  );
}

export function Spinner({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="loading" role="status">
      <span className="spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

/** The server's `detail`, plus Retry-After for a 429 and the quota code. */
export function ErrorNote({
  error,
  title,
  onRetry,
}: {
  error: unknown;
  title?: string;
  onRetry?: () => void;
}) {
  if (!error) return null;
  const e = toApiError(error);
  const rateLimited = e.status === 429 && !e.code;
  return (
    <div className="callout callout-error" role="alert">
      <div className="callout-body">
        {title ? <strong className="callout-title">{title}</strong> : null}
        <p>{e.message}</p>
        {e.dataSource ? <DataSourceDetails problem={e.dataSource} /> : null}
        {rateLimited && e.retryAfterSeconds ? (
          <p className="muted">You can try again in {e.retryAfterSeconds} s (Retry-After).</p>
        ) : null}
        {e.code ? (
          <p className="muted">
            Code: <code>{e.code}</code>
          </p>
        ) : null}
        {e.fieldErrors.length > 0 && !title ? (
          <ul className="field-error-list">
            {e.fieldErrors.map((f) => (
              <li key={f.field}>
                <code>{f.field}</code> {f.message}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
      {onRetry ? (
        <Button size="sm" onClick={onRetry}>
          Try again
        </Button>
      ) : null}
    </div>
  );
}

function DataSourceDetails({ problem }: { problem: DataSourceProblem }) {
  return (
    <dl className="diagnosis">
      {problem.symptom ? (
        <>
          <dt>What happened</dt>
          <dd>{problem.symptom}</dd>
        </>
      ) : null}
      {problem.cause ? (
        <>
          <dt>Why</dt>
          <dd>{problem.cause}</dd>
        </>
      ) : null}
      {problem.fix ? (
        <>
          <dt>What to do</dt>
          <dd>{problem.fix}</dd>
        </>
      ) : null}
    </dl>
  );
}

export function Callout({
  tone = 'info',
  title,
  children,
}: {
  tone?: 'info' | 'warning' | 'success';
  title?: string;
  children: ReactNode;
}) {
  return (
    <div className={`callout callout-${tone}`} role={tone === 'warning' ? 'note' : undefined}>
      <div className="callout-body">
        {title ? <strong className="callout-title">{title}</strong> : null}
        {children}
      </div>
    </div>
  );
}

export function EmptyState({
  title,
  children,
  action,
}: {
  title: string;
  children?: ReactNode;
  action?: ReactNode;
}) {
  return (
    <div className="empty">
      <h3>{title}</h3>
      {children ? <div className="muted">{children}</div> : null}
      {action ? <div className="empty-action">{action}</div> : null}
    </div>
  );
}

export function Badge({
  tone = 'neutral',
  children,
  title,
}: {
  tone?: 'neutral' | 'success' | 'warning' | 'danger' | 'info';
  children: ReactNode;
  title?: string;
}) {
  return (
    <span className={`badge badge-${tone}`} title={title}>
      {children}
    </span>
  );
}

/** A labelled form control with help text and the server's field error next to it. */
export function Field({
  label,
  help,
  error,
  children,
  hint,
}: {
  label: string;
  help?: ReactNode;
  error?: string;
  hint?: ReactNode;
  children: (props: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: boolean }) => ReactNode;
}) {
  const id = useId();
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const describedBy = [help ? helpId : '', error ? errorId : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <div className="field-label-row">
        <label htmlFor={id}>{label}</label>
        {hint ? <span className="field-hint">{hint}</span> : null}
      </div>
      {children({ id, 'aria-describedby': describedBy, 'aria-invalid': error ? true : undefined })}
      {error ? (
        <p className="field-error" id={errorId}>
          {error}
        </p>
      ) : null}
      {help ? (
        <p className="field-help" id={helpId}>
          {help}
        </p>
      ) : null}
    </div>
  );
}

/** A modal built on <dialog> (focus trap and Escape come from the browser); Escape calls `onClose`. */
export function Modal({
  open,
  title,
  onClose,
  children,
  className,
}: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
  className?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className={['dialog', className ?? ''].join(' ').trim()}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}

/** A modal confirmation. */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
  busy,
  error,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
  error?: unknown;
}) {
  return (
    <Modal open={open} title={title} onClose={onCancel}>
      <div className="dialog-body">{children}</div>
      <ErrorNote error={error} />
      <div className="dialog-actions">
        <Button onClick={onCancel} autoFocus>
          Cancel
        </Button>
        <Button variant="danger" onClick={onConfirm} busy={busy}>
          {confirmLabel}
        </Button>
      </div>
    </Modal>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(t);
  }, [copied]);
  return (
    <Button
      size="sm"
      variant="ghost"
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(
          () => setCopied(true),
          () => setCopied(false),
        );
      }}
    >
      <span aria-live="polite">{copied ? 'Copied' : label}</span>
    </Button>
  );
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return d.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function PageHeader({
  title,
  description,
  actions,
}: {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <header className="page-header">
      <div>
        <h1>{title}</h1>
        {description ? <p className="muted">{description}</p> : null}
      </div>
      {actions ? <div className="page-actions">{actions}</div> : null}
    </header>
  );
}

/** A calendar day (“August 1, 2026”); `utc` for the usage month's bounds, which are UTC midnights. */
export function formatDay(iso: string | null | undefined, options: { utc?: boolean } = {}): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleDateString(undefined, {
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    ...(options.utc ? { timeZone: 'UTC' } : {}),
  });
}

/** “1 member”, “2 members”. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}
