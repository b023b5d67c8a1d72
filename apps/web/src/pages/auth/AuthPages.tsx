import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { fieldError, keys, trpc, type Me } from '../../lib/api.ts';
import { Link, navigate, useLocation } from '../../lib/router.tsx';
import { Button, Callout, ErrorNote, Field } from '../../components/ui.tsx';
import { forgetInvite, pendingInvite } from '../../lib/pending-invite.ts';

export function AuthLayout({
  title,
  subtitle,
  children,
  footer,
}: {
  title: string;
  subtitle?: ReactNode;
  children: ReactNode;
  footer?: ReactNode;
}) {
  return (
    <div className="auth-page">
      <main className="auth-card" id="main">
        <div className="brand brand-lg" aria-hidden="true">
          <span className="brand-mark" />
          <span>Analytics Query Service</span>
        </div>
        <h1>{title}</h1>
        {subtitle ? <p className="muted auth-subtitle">{subtitle}</p> : null}
        {children}
      </main>
      {footer ? <p className="auth-footer">{footer}</p> : null}
    </div>
  );
}

function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { email: string; password: string }) => trpc.auth.login.mutate(input),
    onSuccess: (info) => {
      // The login answer carries everything `auth.me` would: no extra request.
      queryClient.clear();
      const { session_expires_at: _expires, ...me } = info;
      queryClient.setQueryData<Me | null>(keys.me, me);
    },
  });
}

/**
 * Where to go after signing in: a path of this app only. The value is resolved as the browser would
 * (`/\\evil.com` and a tab before a second slash are other origins to it) and kept only when it stays
 * on this origin; anything else goes to Ask.
 */
export function safeNext(value: string | null): string {
  if (!value || !value.startsWith('/')) return '/ask';
  try {
    const url = new URL(value, window.location.origin);
    if (url.origin !== window.location.origin) return '/ask';
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return '/ask';
  }
}

/** `?next=…` to append to a link so that the other auth screen comes back to the same place. */
function nextParam(value: string | null): string {
  return value && safeNext(value) === value ? `?next=${encodeURIComponent(value)}` : '';
}

export function SignInPage() {
  const { query } = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useSignIn();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    signIn.mutate(
      { email, password },
      { onSuccess: () => navigate(safeNext(query.get('next')), { replace: true }) },
    );
  };
  return (
    <AuthLayout
      title="Sign in"
      subtitle="Ask questions of your data in plain language."
      footer={
        <>
          New here? <Link to={`/register${nextParam(query.get('next'))}`}>Create an account</Link>
        </>
      }
    >
      <form onSubmit={submit} className="stack" noValidate>
        <ErrorNote error={signIn.error && !fieldError(signIn.error, 'email') ? signIn.error : null} />
        <Field label="Email" error={fieldError(signIn.error, 'email')}>
          {(p) => (
            <input
              {...p}
              type="email"
              autoComplete="email"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          )}
        </Field>
        <Field
          label="Password"
          error={fieldError(signIn.error, 'password')}
          hint={<Link to="/forgot-password">Forgot password?</Link>}
        >
          {(p) => (
            <input
              {...p}
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        <Button type="submit" variant="primary" busy={signIn.isPending} className="btn-block">
          Sign in
        </Button>
      </form>
    </AuthLayout>
  );
}

export function RegisterPage() {
  const { query } = useLocation();
  const next = query.get('next');
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [accepted, setAccepted] = useState<string | null>(null);
  const signIn = useSignIn();
  const register = useMutation({
    mutationFn: () =>
      trpc.auth.register.mutate({ email, password, ...(name.trim() ? { name: name.trim() } : {}) }),
    onSuccess: (res) => {
      setAccepted(res.detail);
      // Sign-in works before the address is confirmed: continue with the same credentials.
      signIn.mutate(
        { email, password },
        {
          onSuccess: () =>
            navigate(
              `/check-email?email=${encodeURIComponent(email)}${next && safeNext(next) === next ? `&next=${encodeURIComponent(next)}` : ''}`,
              { replace: true },
            ),
        },
      );
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    register.mutate();
  };
  return (
    <AuthLayout
      title="Create your account"
      subtitle="Every account comes with a demo shop database to try questions on."
      footer={
        <>
          Already have an account? <Link to={`/login${nextParam(next)}`}>Sign in</Link>
        </>
      }
    >
      {accepted ? <Callout tone="success">{accepted}</Callout> : null}
      {signIn.error ? (
        <ErrorNote error={signIn.error} title="We could not sign you in with these credentials" />
      ) : null}
      <form onSubmit={submit} className="stack" noValidate>
        <ErrorNote
          error={
            register.error &&
            register.error instanceof Error &&
            !fieldError(register.error, 'email') &&
            !fieldError(register.error, 'password')
              ? register.error
              : null
          }
        />
        <Field label="Name" help="Optional. Shown in the top bar.">
          {(p) => (
            <input
              {...p}
              type="text"
              autoComplete="name"
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          )}
        </Field>
        <Field label="Email" error={fieldError(register.error, 'email')}>
          {(p) => (
            <input
              {...p}
              type="email"
              autoComplete="email"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          )}
        </Field>
        <Field label="Password" help="At least 8 characters." error={fieldError(register.error, 'password')}>
          {(p) => (
            <input
              {...p}
              type="password"
              autoComplete="new-password"
              required
              minLength={8}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        <Button
          type="submit"
          variant="primary"
          busy={register.isPending || signIn.isPending}
          className="btn-block"
        >
          Create account
        </Button>
      </form>
    </AuthLayout>
  );
}

/** Shown after registration (signed in already): where the link went, and how to get a new one. */
export function CheckEmailPage({ me }: { me: Me }) {
  const { query } = useLocation();
  const next = query.get('next');
  const toInvite = next !== null && safeNext(next) === next && next.startsWith('/invite?');
  const resend = useMutation({ mutationFn: () => trpc.auth.resendVerification.mutate({}) });
  return (
    <AuthLayout
      title="Check your email"
      subtitle={
        <>
          We sent a confirmation link to <strong>{me.user.email}</strong>.
        </>
      }
    >
      <div className="stack">
        {toInvite ? (
          <Callout tone="info" title="Your invite is waiting">
            <p>
              Joining a workspace needs a confirmed address: open the link, then continue to the invite (the
              confirmation page leads back to it).
            </p>
          </Callout>
        ) : (
          <p>
            Open the link to confirm your address. You can already use the app meanwhile; confirming keeps
            your account recoverable.
          </p>
        )}
        <Callout tone="info" title="Running the service locally without SMTP?">
          <p>
            Without <code>SMTP_URL</code> no email leaves the server: the message, with its{' '}
            <code>/verify-email?token=…</code> link, is written to the server log and kept in the{' '}
            <code>outbox_emails</code> table.
          </p>
        </Callout>
        {resend.data ? <Callout tone="success">{resend.data.detail}</Callout> : null}
        <ErrorNote error={resend.error} />
        <div className="row gap">
          <Button variant="primary" onClick={() => navigate(toInvite ? next : '/ask', { replace: true })}>
            {toInvite ? 'Continue to the invite' : 'Continue to the app'}
          </Button>
          <Button onClick={() => resend.mutate()} busy={resend.isPending}>
            Resend the link
          </Button>
        </div>
      </div>
    </AuthLayout>
  );
}

export function VerifyEmailPage({ signedIn }: { signedIn: boolean }) {
  const { query } = useLocation();
  const token = query.get('token') ?? '';
  const queryClient = useQueryClient();
  const verify = useMutation({
    mutationFn: () => trpc.auth.verifyEmail.mutate({ token }),
    onSuccess: () => {
      queryClient.setQueryData<Me | null>(keys.me, (me) =>
        me ? { ...me, email_verified: true, user: { ...me.user, email_verified: true } } : me,
      );
      void queryClient.invalidateQueries({ queryKey: keys.onboarding, refetchType: 'none' });
    },
  });
  // An invite opened before registering waits in this browser: confirming leads back to it.
  const [invite] = useState(pendingInvite);
  const started = useRef(false);
  useEffect(() => {
    if (started.current || !token) return;
    started.current = true;
    verify.mutate();
  }, [token, verify]);
  return (
    <AuthLayout title="Confirm your email">
      <div className="stack" aria-live="polite">
        {!token ? (
          <ErrorNote
            error={
              new Error(
                'This link has no token. Open the link from the email again, or ask for a new one from the app.',
              )
            }
          />
        ) : null}
        {verify.isPending ? <p>Confirming your address…</p> : null}
        {verify.data ? (
          <Callout tone="success" title="Confirmed">
            {verify.data.detail}
          </Callout>
        ) : null}
        <ErrorNote error={verify.error} title="The link did not work" />
        {verify.error ? (
          <p className="muted">
            Links work once and expire after 48 hours. Sign in and use “Resend the link” to get a new one.
          </p>
        ) : null}
        {(verify.data || verify.error || !token) && (
          <div className="row gap wrap">
            {verify.data && invite ? (
              <Button
                variant="primary"
                onClick={() =>
                  navigate(signedIn ? invite : `/login?next=${encodeURIComponent(invite)}`, { replace: true })
                }
              >
                Continue to the invite
              </Button>
            ) : null}
            <Button
              variant={verify.data && invite ? 'secondary' : 'primary'}
              onClick={() => {
                if (invite) forgetInvite();
                navigate(signedIn ? '/ask' : '/login', { replace: true });
              }}
            >
              {signedIn ? 'Continue to the app' : 'Sign in'}
            </Button>
          </div>
        )}
      </div>
    </AuthLayout>
  );
}

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const forgot = useMutation({ mutationFn: () => trpc.auth.forgotPassword.mutate({ email }) });
  return (
    <AuthLayout
      title="Reset your password"
      subtitle="We will email you a link to choose a new password."
      footer={<Link to="/login">Back to sign in</Link>}
    >
      {forgot.data ? (
        <div className="stack">
          <Callout tone="success">{forgot.data.detail}</Callout>
          <p className="muted">
            Running locally without SMTP? The email, with its <code>/reset-password?token=…</code> link, is in
            the server log and the <code>outbox_emails</code> table. The link expires after an hour.
          </p>
        </div>
      ) : (
        <form
          className="stack"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            forgot.mutate();
          }}
        >
          <ErrorNote error={forgot.error && !fieldError(forgot.error, 'email') ? forgot.error : null} />
          <Field label="Email" error={fieldError(forgot.error, 'email')}>
            {(p) => (
              <input
                {...p}
                type="email"
                autoComplete="email"
                required
                value={email}
                onChange={(e) => setEmail(e.target.value)}
              />
            )}
          </Field>
          <Button type="submit" variant="primary" busy={forgot.isPending} className="btn-block">
            Send the link
          </Button>
        </form>
      )}
    </AuthLayout>
  );
}

export function ResetPasswordPage() {
  const { query } = useLocation();
  const token = query.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const queryClient = useQueryClient();
  const reset = useMutation({
    mutationFn: () => trpc.auth.resetPassword.mutate({ token, password }),
    onSuccess: () => {
      queryClient.clear();
      queryClient.setQueryData<Me | null>(keys.me, null);
    },
  });
  return (
    <AuthLayout title="Choose a new password" footer={<Link to="/login">Back to sign in</Link>}>
      {reset.data ? (
        <div className="stack">
          <Callout tone="success">{reset.data.detail}</Callout>
          <Button variant="primary" onClick={() => navigate('/login', { replace: true })}>
            Sign in
          </Button>
        </div>
      ) : (
        <form
          className="stack"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            if (password !== confirm) {
              setMismatch(true);
              return;
            }
            setMismatch(false);
            reset.mutate();
          }}
        >
          {!token ? (
            <ErrorNote error={new Error('This link has no token. Ask for a new reset link.')} />
          ) : null}
          <ErrorNote error={reset.error && !fieldError(reset.error, 'password') ? reset.error : null} />
          <Field
            label="New password"
            help="At least 8 characters. Every session of your account will be signed out."
            error={fieldError(reset.error, 'password')}
          >
            {(p) => (
              <input
                {...p}
                type="password"
                autoComplete="new-password"
                required
                minLength={8}
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            )}
          </Field>
          <Field
            label="Repeat the new password"
            error={mismatch ? 'does not match the password above' : undefined}
          >
            {(p) => (
              <input
                {...p}
                type="password"
                autoComplete="new-password"
                required
                value={confirm}
                onChange={(e) => setConfirm(e.target.value)}
              />
            )}
          </Field>
          <Button
            type="submit"
            variant="primary"
            busy={reset.isPending}
            className="btn-block"
            disabled={!token}
          >
            Set the new password
          </Button>
          {reset.error ? (
            <p className="muted">
              Expired or used link? <Link to="/forgot-password">Ask for a new one</Link>.
            </p>
          ) : null}
        </form>
      )}
    </AuthLayout>
  );
}
