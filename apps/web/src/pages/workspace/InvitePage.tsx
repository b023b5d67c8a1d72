import { useEffect } from 'react';
import { useMutation } from '@tanstack/react-query';
import { toApiError, trpc, type Me } from '../../lib/api.ts';
import { useSignOut } from '../../lib/account.ts';
import { forgetInvite, invitePath, rememberInvite } from '../../lib/pending-invite.ts';
import { Link, navigate, useLocation } from '../../lib/router.tsx';
import { Button, Callout, ErrorNote } from '../../components/ui.tsx';
import { AuthLayout } from '../auth/AuthPages.tsx';
import { useAcceptInvite } from './queries.ts';

/**
 * `/invite?token=…` from the invite email, signed in or not. Nothing is sent on load (a link preview
 * must not use the invite): joining is the button.
 */
export function InvitePage({ me }: { me: Me | null }) {
  const { query } = useLocation();
  const token = query.get('token') ?? '';
  if (!token) {
    return (
      <AuthLayout title="Join a workspace">
        <div className="stack">
          <ErrorNote
            error={
              new Error(
                'This invite link has no token. Open the link from the invite email again, or ask the workspace owner for a new invite.',
              )
            }
          />
          <Link to={me ? '/ask' : '/login'}>{me ? 'Continue to the app' : 'Sign in'}</Link>
        </div>
      </AuthLayout>
    );
  }
  return me ? <JoinWorkspace me={me} token={token} /> : <SignedOutInvite token={token} />;
}

function SignedOutInvite({ token }: { token: string }) {
  const path = invitePath(token);
  const next = encodeURIComponent(path);
  // Registering means confirming the email first, through a link that may open in another tab: the
  // invite is kept in this browser so that confirming leads back here.
  useEffect(() => rememberInvite(path), [path]);
  return (
    <AuthLayout
      title="Join a workspace"
      subtitle="You were invited to join a workspace: sign in or create an account with the address the invite was sent to."
    >
      <div className="stack">
        <div className="row gap wrap">
          <Link to={`/login?next=${next}`} className="btn btn-primary">
            Sign in
          </Link>
          <Link to={`/register?next=${next}`} className="btn">
            Create an account
          </Link>
        </div>
        <p className="muted small">
          A new account confirms its address first (we email a link), then comes back here to join.
        </p>
      </div>
    </AuthLayout>
  );
}

/** The Join button is replaced by the outcome: focus moves to it. */
const focusOnMount = (element: HTMLElement | null) => element?.focus();

function JoinWorkspace({ me, token }: { me: Me; token: string }) {
  const accept = useAcceptInvite();
  const path = invitePath(token);
  const resend = useMutation({ mutationFn: () => trpc.auth.resendVerification.mutate({}) });
  const switchAccount = useSignOut(path);
  // Not confirmed yet: the invite waits in this browser until the confirmation link brings them back.
  useEffect(() => {
    if (!me.email_verified) rememberInvite(path);
  }, [me.email_verified, path]);
  const join = () =>
    accept.mutate(token, {
      onSuccess: () => forgetInvite(),
      // A refusal for the invite itself will not change by trying again: it is not kept.
      onError: (error) => {
        if (toApiError(error).status === 400 && me.email_verified) forgetInvite();
      },
    });
  if (accept.data) {
    return (
      <AuthLayout title={`You joined ${accept.data.workspace.name}`}>
        <div className="stack focus-target" role="status" tabIndex={-1} ref={focusOnMount}>
          <Callout tone="success">{accept.data.detail}</Callout>
          <div className="row gap wrap">
            <Button variant="primary" onClick={() => navigate('/workspace', { replace: true })}>
              Open the workspace
            </Button>
            <Button onClick={() => navigate('/ask', { replace: true })}>Ask a question</Button>
          </div>
        </div>
      </AuthLayout>
    );
  }
  return (
    <AuthLayout
      title="Join a workspace"
      subtitle={
        <>
          You were invited to join a workspace. You are signed in as <strong>{me.user.email}</strong>: the
          invite has to be for this address.
        </>
      }
    >
      <div className="stack">
        {!me.email_verified ? (
          <Callout tone="warning" title="Confirm your email first">
            <p>
              Open the link we emailed to {me.user.email}, then come back to this invite: it waits for you in
              this browser.
            </p>
            {resend.data ? <p className="muted">{resend.data.detail}</p> : null}
            <ErrorNote error={resend.error} />
            <div>
              <Button size="sm" onClick={() => resend.mutate()} busy={resend.isPending}>
                Resend the link
              </Button>
            </div>
          </Callout>
        ) : null}
        <ErrorNote error={accept.error} title="You could not join with this invite" />
        <div className="row gap wrap">
          <Button variant="primary" onClick={join} busy={accept.isPending}>
            Join workspace
          </Button>
          <Button variant="ghost" onClick={() => switchAccount.mutate()} busy={switchAccount.isPending}>
            Use another account
          </Button>
        </div>
        <p className="muted small">
          Joining lets you work in that workspace; your own workspace stays yours. Switch between them from
          the top bar.{' '}
          <Link to="/ask" onClick={() => forgetInvite()}>
            Not now
          </Link>
        </p>
      </div>
    </AuthLayout>
  );
}
