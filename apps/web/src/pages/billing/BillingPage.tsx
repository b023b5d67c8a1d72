import { useEffect, useRef, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { trpc, type BillingSummary, type PlanId } from '../../lib/api.ts';
import { billingQuery, PLAN_NAMES, useBillingSummary, useMe } from '../../lib/account.ts';
import { Link, useLocation } from '../../lib/router.tsx';
import {
  Badge,
  Button,
  Callout,
  ErrorNote,
  PageHeader,
  Spinner,
  formatDay,
  plural,
} from '../../components/ui.tsx';
import { SeatsMeter, UsageMeter } from '../../components/UsageMeter.tsx';

type Status = BillingSummary['status'];
type PaidPlan = Exclude<PlanId, 'free'>;

const PLAN_ORDER: PlanId[] = ['free', 'pro', 'team'];

const STATUS: Record<Status, { label: string; tone: 'success' | 'info' | 'warning' | 'neutral' }> = {
  active: { label: 'Active', tone: 'success' },
  trialing: { label: 'Trial', tone: 'info' },
  past_due: { label: 'Payment past due', tone: 'warning' },
  canceled: { label: 'Canceled', tone: 'neutral' },
  none: { label: 'No subscription', tone: 'neutral' },
};

/** A subscription that is running (the plan comes from it). */
function isLive(status: Status): boolean {
  return status === 'active' || status === 'trialing' || status === 'past_due';
}

/**
 * After Stripe's checkout: read the summary again, at most twice, until the plan shows. Stripe
 * usually confirms within seconds: the reads come 3 s and 9 s after coming back (the second waits 6 s
 * more), and no more.
 */
const FOLLOW_UP_DELAYS_MS = [3_000, 6_000];

function useCheckoutFollowUp(active: boolean, summary: BillingSummary | undefined) {
  const queryClient = useQueryClient();
  const [state, setState] = useState<'waiting' | 'confirmed' | 'not-yet'>('waiting');
  const latest = useRef(summary);
  latest.current = summary;
  useEffect(() => {
    if (!active) return;
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = async (attempt: number) => {
      // Already confirmed (the webhook came before the browser): no request.
      if (latest.current && isLive(latest.current.status)) {
        setState('confirmed');
        return;
      }
      const fresh = await queryClient.fetchQuery({ ...billingQuery, staleTime: 0 }).catch(() => undefined);
      if (cancelled) return;
      if (fresh && isLive(fresh.status)) setState('confirmed');
      else if (attempt + 1 < FOLLOW_UP_DELAYS_MS.length)
        timer = setTimeout(() => void check(attempt + 1), FOLLOW_UP_DELAYS_MS[attempt + 1]);
      else setState('not-yet');
    };
    timer = setTimeout(() => void check(0), FOLLOW_UP_DELAYS_MS[0]);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [active, queryClient]);
  return state;
}

export function BillingPage() {
  const { query } = useLocation();
  const summary = useBillingSummary();
  const me = useMe();
  const checkout = query.get('checkout');
  const followUp = useCheckoutFollowUp(checkout === 'success', summary.data);
  const s = summary.data;
  return (
    <div className="page">
      <PageHeader
        title="Billing"
        description={
          me ? (
            <>
              Plan, usage this month and seats of <strong>{me.workspace.name}</strong>.
            </>
          ) : undefined
        }
      />
      <div role="status" className="billing-status">
        {checkout === 'success' ? (
          <Callout tone="success" title="Payment received">
            <p>Payment received; the plan changes as soon as Stripe confirms it.</p>
            {followUp === 'confirmed' && s ? (
              <p>This workspace is now on the {PLAN_NAMES[s.plan]} plan.</p>
            ) : followUp === 'not-yet' ? (
              <p className="muted">
                Stripe has not confirmed it yet. Reload this page in a minute to see it.
              </p>
            ) : null}
          </Callout>
        ) : null}
        {checkout === 'cancelled' ? (
          <Callout tone="info" title="Checkout cancelled">
            <p>Nothing was charged and the plan did not change.</p>
          </Callout>
        ) : null}
      </div>
      {summary.isPending ? <Spinner label="Loading the plan and usage…" /> : null}
      <ErrorNote
        error={summary.error}
        title="The plan and usage could not be loaded"
        onRetry={() => void summary.refetch()}
      />
      {/* A summary of the workspace the session just left is never shown under this one's name. */}
      {s && me && s.workspace_id === me.workspace.id ? (
        <BillingDetails summary={s} ownerEmail={me.user.email} />
      ) : null}
    </div>
  );
}

function BillingDetails({ summary: s, ownerEmail }: { summary: BillingSummary; ownerEmail: string }) {
  const canChange = s.can_manage && s.billing_configured;
  return (
    <>
      <section className="card billing-plan" aria-labelledby="billing-plan-title">
        <div className="billing-plan-head">
          <h2 id="billing-plan-title">
            {PLAN_NAMES[s.plan]} plan{' '}
            <Badge tone={STATUS[s.status].tone}>
              <span className="visually-hidden">Subscription: </span>
              {STATUS[s.status].label}
            </Badge>
          </h2>
          {canChange && s.status !== 'none' ? <ManageBilling /> : null}
        </div>
        <PlanDates summary={s} />
        {!s.can_manage ? (
          <Callout tone="info">
            <p>Only the owner can change the plan. You can see the plan and this month&apos;s usage.</p>
          </Callout>
        ) : !s.billing_configured ? (
          <NotConfigured ownerEmail={ownerEmail} />
        ) : null}
      </section>

      <section className="card billing-usage" aria-labelledby="billing-usage-title">
        <h2 id="billing-usage-title">Usage this month</h2>
        <p className="muted small">
          Since {formatDay(s.period_start, { utc: true })}. Allowances renew on{' '}
          {formatDay(s.period_end, { utc: true })} (UTC).
        </p>
        <div className="meters">
          <UsageMeter
            title="Questions"
            used={s.usage.questions.used}
            limit={s.usage.questions.limit}
            text={`${s.usage.questions.used.toLocaleString()} of ${s.usage.questions.limit.toLocaleString()} questions this month`}
          />
          <UsageMeter
            title="AI schema analyses"
            used={s.usage.schema_analyses.used}
            limit={s.usage.schema_analyses.limit}
            text={`${s.usage.schema_analyses.used.toLocaleString()} of ${s.usage.schema_analyses.limit.toLocaleString()} AI schema analyses this month`}
          />
          <UsageMeter
            title="Active connections"
            used={s.usage.connections.used}
            limit={s.usage.connections.limit}
            text={`${s.usage.connections.used.toLocaleString()} of ${s.usage.connections.limit.toLocaleString()} active connections`}
            note="Right now, not per month. Paused connections and the demo shop do not count."
          />
          <SeatsMeter
            title="Seats"
            seats={s.seats}
            note={
              <>
                {plural(s.seats.used, 'member')} (the owner included),{' '}
                {plural(s.seats.pending, 'pending invite')}. <Link to="/workspace">Workspace</Link>
              </>
            }
          />
        </div>
      </section>

      <PlansTable summary={s} canChange={canChange} />
    </>
  );
}

function PlanDates({ summary: s }: { summary: BillingSummary }) {
  return (
    <dl className="billing-facts">
      {s.renews_at ? (
        <>
          <dt>
            {s.status === 'canceled'
              ? 'Subscription ended'
              : s.status === 'past_due'
                ? 'Billing period ends'
                : 'Renews on'}
          </dt>
          <dd>{formatDay(s.renews_at)}</dd>
        </>
      ) : null}
      <dt>Allowances renew on</dt>
      <dd>{formatDay(s.period_end, { utc: true })} (UTC, every month)</dd>
      {s.status === 'none' && s.plan !== 'free' ? (
        <>
          <dt>Set by</dt>
          <dd>the server&apos;s operator (no subscription)</dd>
        </>
      ) : null}
      {s.status === 'past_due' ? (
        <>
          <dt>Payment</dt>
          <dd>The last payment failed: update the payment method in Manage billing.</dd>
        </>
      ) : null}
    </dl>
  );
}

function NotConfigured({ ownerEmail }: { ownerEmail: string }) {
  return (
    <Callout tone="info" title="Billing is not set up on this server">
      <p>
        Upgrading online needs Stripe, which this server&apos;s operator has not configured. The operator can
        set this workspace&apos;s plan from the command line:
      </p>
      <pre className="code">
        <code>npm run cli -- plans set --email {ownerEmail || '<owner email>'} --plan team</code>
      </pre>
      <p className="muted small">
        <code>npm run cli -- plans list</code> prints each plan&apos;s limits on this server.
      </p>
    </Callout>
  );
}

function ManageBilling() {
  const portal = useMutation({
    mutationFn: () => trpc.billing.portal.mutate({}),
    onSuccess: ({ url }) => window.location.assign(url),
  });
  return (
    <div className="stack billing-manage">
      <Button onClick={() => portal.mutate()} busy={portal.isPending || portal.isSuccess}>
        Manage billing
      </Button>
      <ErrorNote error={portal.error} />
    </div>
  );
}

function PlansTable({ summary: s, canChange }: { summary: BillingSummary; canChange: boolean }) {
  const plans = PLAN_ORDER.filter((p) => s.limits[p]);
  const rank = (p: PlanId) => PLAN_ORDER.indexOf(p);
  // Checkout starts a subscription; a running one is changed in the portal instead.
  const canCheckout = canChange && !isLive(s.status);
  const checkout = useMutation({
    mutationFn: (plan: PaidPlan) => trpc.billing.checkout.mutate({ plan }),
    onSuccess: ({ url }) => window.location.assign(url),
  });
  const rows: { label: string; value: (p: PlanId) => number }[] = [
    { label: 'Questions per month', value: (p) => s.limits[p].questions_per_month },
    { label: 'AI schema analyses per month', value: (p) => s.limits[p].schema_analyses_per_month },
    { label: 'Active connections', value: (p) => s.limits[p].connections },
    { label: 'Seats (people, the owner included)', value: (p) => s.limits[p].seats },
  ];
  return (
    <section className="card billing-plans" aria-labelledby="billing-plans-title">
      <h2 id="billing-plans-title">Plans</h2>
      <ErrorNote error={checkout.error} title="Checkout could not start" />
      <div className="table-scroll">
        <table className="data-table plans-table">
          <caption className="visually-hidden">The limits of each plan</caption>
          <thead>
            <tr>
              <th scope="col">Limit</th>
              {plans.map((p) => (
                <th scope="col" key={p} className={p === s.plan ? 'is-current' : undefined}>
                  {PLAN_NAMES[p]}
                  {p === s.plan ? (
                    <>
                      {' '}
                      <Badge tone="info">Current</Badge>
                    </>
                  ) : null}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.label}>
                <th scope="row">{row.label}</th>
                {plans.map((p) => (
                  <td key={p} className={`num${p === s.plan ? ' is-current' : ''}`}>
                    {row.value(p).toLocaleString()}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
          {canCheckout ? (
            <tfoot>
              <tr>
                <th scope="row">Change</th>
                {plans.map((p) => (
                  <td key={p} className="num">
                    {p !== 'free' && rank(p) > rank(s.plan) ? (
                      <Button
                        variant="primary"
                        size="sm"
                        busy={checkout.variables === p && (checkout.isPending || checkout.isSuccess)}
                        disabled={checkout.isPending || checkout.isSuccess}
                        onClick={() => checkout.mutate(p)}
                      >
                        Upgrade to {PLAN_NAMES[p]}
                      </Button>
                    ) : p === s.plan ? (
                      <span className="muted small">Your plan</span>
                    ) : (
                      <span className="muted small">—</span>
                    )}
                  </td>
                ))}
              </tr>
            </tfoot>
          ) : null}
        </table>
      </div>
      {canChange && isLive(s.status) ? (
        <p className="muted small">Change or cancel the subscription with Manage billing.</p>
      ) : null}
    </section>
  );
}
