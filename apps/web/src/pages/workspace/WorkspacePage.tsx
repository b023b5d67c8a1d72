import { useEffect, useRef, useState, type FormEvent } from 'react';
import {
  fieldError,
  type MemberWorkspaceView,
  type OwnerWorkspaceView,
  type WorkspaceInvite,
  type WorkspaceMember,
} from '../../lib/api.ts';
import { PLAN_NAMES, ROLE_NAMES, useMe, useWorkspaceDrift } from '../../lib/account.ts';
import { Link } from '../../lib/router.tsx';
import {
  Badge,
  Button,
  Callout,
  ConfirmDialog,
  ErrorNote,
  Field,
  PageHeader,
  Spinner,
  formatDate,
  formatDay,
  plural,
} from '../../components/ui.tsx';
import { SeatsMeter } from '../../components/UsageMeter.tsx';
import {
  useInvite,
  useLeaveWorkspace,
  useRemoveMember,
  useRevokeInvite,
  useWorkspaceView,
} from './queries.ts';

export function WorkspacePage() {
  const view = useWorkspaceView();
  const me = useMe();
  // Left or removed meanwhile: the server answers for the session's workspace now, which `me` catches up with.
  useWorkspaceDrift(view.data?.workspace.id);
  // What happened to the session's workspace (left it), said once the page shows the new one.
  const [notice, setNotice] = useState<string | null>(null);
  const noticeRef = useRef<HTMLDivElement>(null);
  // The view that had the focused button is gone: the sentence saying what happened takes the focus.
  useEffect(() => {
    if (notice) noticeRef.current?.focus();
  }, [notice]);
  const v = view.data;
  return (
    <div className="page">
      <PageHeader
        title="Workspace"
        description={
          v ? (
            <>
              <strong>{v.workspace.name}</strong> · {PLAN_NAMES[v.workspace.plan]} plan · you are{' '}
              {v.role === 'owner' ? 'the owner' : 'a member'}
            </>
          ) : undefined
        }
        actions={
          v ? (
            <Button onClick={() => void view.refetch()} busy={view.isFetching}>
              Refresh
            </Button>
          ) : undefined
        }
      />
      <div role="status" ref={noticeRef} tabIndex={-1} className="focus-target">
        {notice ? <Callout tone="success">{notice}</Callout> : null}
      </div>
      {view.isPending ? <Spinner label="Loading the workspace…" /> : null}
      <ErrorNote
        error={view.error}
        title="The workspace could not be loaded"
        onRetry={() => void view.refetch()}
      />
      {v?.role === 'owner' ? <OwnerView view={v} /> : null}
      {v?.role === 'member' && me ? (
        <MemberView view={v} userId={me.user.id} onLeft={(name) => setNotice(`You left ${name}.`)} />
      ) : null}
    </div>
  );
}

function OwnerView({ view }: { view: OwnerWorkspaceView }) {
  const { seats } = view;
  return (
    <>
      <section className="card workspace-seats" aria-labelledby="seats-title">
        <h2 id="seats-title">Seats</h2>
        <SeatsMeter
          title="People in this workspace"
          seats={seats}
          note={
            <>
              {plural(seats.used, 'member')} (you included) and {plural(seats.pending, 'pending invite')}: a
              pending invite holds a seat until it is accepted, revoked or expires.
            </>
          }
        />
      </section>
      <InviteForm view={view} />
      <Members view={view} />
      <Invites view={view} />
    </>
  );
}

function InviteForm({ view }: { view: OwnerWorkspaceView }) {
  const invite = useInvite();
  const [email, setEmail] = useState('');
  // The fieldset is disabled while sending: focus goes back to the (emptied) address for the next one.
  const emailRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (invite.isSuccess) emailRef.current?.focus();
  }, [invite.isSuccess, invite.data]);
  // The server says whether an invite can go out; the plan and the seats only say why not.
  const teamPlan = view.workspace.plan === 'team';
  const seatsFull = view.seats.used + view.seats.pending >= view.seats.allowed;
  const disabled = !view.can_invite;
  const emailError = fieldError(invite.error, 'email');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const address = email.trim();
    if (!address) return;
    invite.mutate(address, { onSuccess: () => setEmail('') });
  };
  return (
    <section className="card workspace-invite" aria-labelledby="invite-title">
      <h2 id="invite-title">Invite someone</h2>
      {!teamPlan ? (
        <Callout tone="info" title="Inviting people needs the Team plan">
          <p>
            This workspace is on the {PLAN_NAMES[view.workspace.plan]} plan, which has one seat: yours.{' '}
            <Link to="/billing">See the plans on Billing</Link>.
          </p>
        </Callout>
      ) : seatsFull ? (
        <Callout tone="warning" title="Every seat is taken">
          <p>
            Revoke a pending invite or remove a member to free a seat, or ask the operator for more seats.{' '}
            <Link to="/billing">Billing</Link>
          </p>
        </Callout>
      ) : null}
      <div role="status">
        {invite.data && !invite.isPending ? (
          <Callout tone="success">
            <p>
              Invite sent to <strong>{invite.data.email}</strong>. The link works once and expires on{' '}
              {formatDay(invite.data.expires_at)}.
            </p>
          </Callout>
        ) : null}
      </div>
      <ErrorNote error={invite.error && !emailError ? invite.error : null} title="The invite was not sent" />
      <form className="invite-form" onSubmit={submit} noValidate aria-label="Invite someone">
        <fieldset disabled={disabled || invite.isPending} className="invite-fields">
          <Field
            label="Email address"
            error={emailError}
            help="They join as a member: they ask questions and use this workspace's connections, dashboards and saved questions. Only you change connections, billing and members."
          >
            {(p) => (
              <input
                {...p}
                ref={emailRef}
                type="email"
                autoComplete="off"
                required
                value={email}
                onChange={(e) => setEmail(e.target.value)}
                placeholder="colleague@example.com"
              />
            )}
          </Field>
          <div>
            <Button type="submit" variant="primary" busy={invite.isPending} disabled={!email.trim()}>
              Send invite
            </Button>
          </div>
        </fieldset>
      </form>
    </section>
  );
}

function Members({ view }: { view: OwnerWorkspaceView }) {
  const remove = useRemoveMember();
  const [target, setTarget] = useState<WorkspaceMember | null>(null);
  const [removed, setRemoved] = useState<string | null>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  // After a removal the row (and its button) is gone: focus goes to the list's heading, which says
  // what happened. This runs after the dialog's own effect has closed it.
  const [focusHeading, setFocusHeading] = useState(0);
  useEffect(() => {
    if (focusHeading > 0) headingRef.current?.focus();
  }, [focusHeading]);
  return (
    <section className="card workspace-members" aria-labelledby="members-title">
      <h2 id="members-title" ref={headingRef} tabIndex={-1}>
        Members <span className="muted small">({view.members.length})</span>
      </h2>
      <div role="status">{removed ? <p className="muted small">{removed}</p> : null}</div>
      <div className="table-scroll">
        <table className="data-table">
          <caption className="visually-hidden">Members of {view.workspace.name}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Joined</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {view.members.map((m) => (
              <tr key={m.user_id}>
                <td>{m.name ?? <span className="muted">—</span>}</td>
                <td>{m.email}</td>
                <td>
                  <Badge tone={m.role === 'owner' ? 'info' : 'neutral'}>{ROLE_NAMES[m.role]}</Badge>
                </td>
                <td>{formatDay(m.joined_at)}</td>
                <td className="num">
                  {m.role === 'member' ? (
                    <Button
                      size="sm"
                      variant="ghost"
                      aria-label={`Remove ${m.name ?? m.email}`}
                      onClick={() => {
                        remove.reset();
                        setTarget(m);
                      }}
                    >
                      Remove
                    </Button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ConfirmDialog
        open={target !== null}
        title={`Remove ${target?.name ?? target?.email ?? ''}?`}
        confirmLabel="Remove member"
        busy={remove.isPending}
        error={remove.error}
        onCancel={() => setTarget(null)}
        onConfirm={() => {
          if (!target) return;
          remove.mutate(target.user_id, {
            onSuccess: () => {
              setRemoved(`${target.name ?? target.email} was removed from the workspace.`);
              setTarget(null);
              setFocusHeading((n) => n + 1);
            },
          });
        }}
      >
        <p>
          Their access to {view.workspace.name} ends at once: their API keys for it are revoked and their
          sessions move to their own workspace. What they made (conversations, dashboards) stays here.
        </p>
      </ConfirmDialog>
    </section>
  );
}

function Invites({ view }: { view: OwnerWorkspaceView }) {
  const revoke = useRevokeInvite();
  const [revoked, setRevoked] = useState<string | null>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const onRevoke = (invite: WorkspaceInvite) =>
    revoke.mutate(invite, {
      onSuccess: () => {
        setRevoked(`The invite to ${invite.email} was revoked: its link no longer works.`);
        headingRef.current?.focus();
      },
    });
  return (
    <section className="card workspace-invites" aria-labelledby="invites-title">
      <h2 id="invites-title" ref={headingRef} tabIndex={-1}>
        Pending invites <span className="muted small">({view.invites.length})</span>
      </h2>
      <div role="status">{revoked ? <p className="muted small">{revoked}</p> : null}</div>
      <ErrorNote error={revoke.error} title="The invite was not revoked" />
      {view.invites.length === 0 ? (
        <p className="muted">No pending invites.</p>
      ) : (
        <div className="table-scroll">
          <table className="data-table">
            <caption className="visually-hidden">Pending invites</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Invited by</th>
                <th scope="col">Sent</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {view.invites.map((i) => (
                <tr key={i.id}>
                  <td>{i.email}</td>
                  <td>{i.invited_by ?? <span className="muted">—</span>}</td>
                  <td>{formatDate(i.created_at)}</td>
                  <td>{formatDate(i.expires_at)}</td>
                  <td className="num">
                    <Button
                      size="sm"
                      variant="ghost"
                      aria-label={`Revoke the invite to ${i.email}`}
                      busy={revoke.isPending && revoke.variables?.id === i.id}
                      onClick={() => onRevoke(i)}
                    >
                      Revoke
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function MemberView({
  view,
  userId,
  onLeft,
}: {
  view: MemberWorkspaceView;
  userId: string;
  onLeft: (workspaceName: string) => void;
}) {
  const leave = useLeaveWorkspace();
  const [confirming, setConfirming] = useState(false);
  const { workspace } = view;
  const owner = workspace.owner;
  return (
    <section className="card workspace-member" aria-labelledby="member-title">
      <h2 id="member-title">{workspace.name}</h2>
      <dl className="billing-facts">
        <dt>Owner</dt>
        <dd>{owner.name ? `${owner.name} (${owner.email})` : owner.email}</dd>
        <dt>Plan</dt>
        <dd>{PLAN_NAMES[workspace.plan]}</dd>
        <dt>Your role</dt>
        <dd>Member</dd>
        <dt>Joined</dt>
        <dd>{formatDay(view.joined_at)}</dd>
      </dl>
      <p className="muted">
        As a member you ask questions of this workspace&apos;s connections and use its dashboards and saved
        questions. Only the owner adds or changes connections, changes the plan, and invites or removes
        people. <Link to="/billing">Plan and usage</Link>
      </p>
      <div>
        <Button
          variant="danger"
          onClick={() => {
            leave.reset();
            setConfirming(true);
          }}
        >
          Leave workspace
        </Button>
      </div>
      <ConfirmDialog
        open={confirming}
        title={`Leave ${workspace.name}?`}
        confirmLabel="Leave workspace"
        busy={leave.isPending}
        error={leave.error}
        onCancel={() => setConfirming(false)}
        onConfirm={() =>
          leave.mutate(userId, {
            onSuccess: () => {
              setConfirming(false);
              onLeft(workspace.name);
            },
          })
        }
      >
        <p>
          You lose access at once and go back to your own workspace. What you made there stays in the
          workspace. To come back, you need a new invite.
        </p>
      </ConfirmDialog>
    </section>
  );
}
