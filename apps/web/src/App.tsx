import { lazy, Suspense, useEffect, useRef, useState, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { toApiError, trpc, type Me } from './lib/api.ts';
import {
  meQuery,
  prefetchShell,
  useBillingSummary,
  usePlanFromSummary,
  useSignOut,
  useWorkspaceDrift,
} from './lib/account.ts';
import { Link, match, navigate, useLocation } from './lib/router.tsx';
import { ErrorNote, Spinner } from './components/ui.tsx';
import { QuotaBanner } from './components/QuotaBanner.tsx';
import { WorkspaceSwitcher } from './components/WorkspaceSwitcher.tsx';
import {
  CheckEmailPage,
  ForgotPasswordPage,
  RegisterPage,
  ResetPasswordPage,
  safeNext,
  SignInPage,
  VerifyEmailPage,
} from './pages/auth/AuthPages.tsx';
import { InvitePage } from './pages/workspace/InvitePage.tsx';
import { AskPage } from './pages/ask/AskPage.tsx';
import { ConnectionsPage } from './pages/connections/ConnectionsPage.tsx';
import { ConnectionFormPage } from './pages/connections/ConnectionForm.tsx';
import { SchemaPage } from './pages/connections/SchemaPage.tsx';
import { HistoryPage } from './pages/history/HistoryPage.tsx';

// The dashboard screens (and the drag-and-drop library) are fetched when first opened.
const DashboardsPage = lazy(async () => ({
  default: (await import('./pages/dashboards/DashboardsPage.tsx')).DashboardsPage,
}));
const DiscoveryPage = lazy(async () => ({
  default: (await import('./pages/discovery/DiscoveryPage.tsx')).DiscoveryPage,
}));
const DashboardPage = lazy(async () => ({
  default: (await import('./pages/dashboards/DashboardPage.tsx')).DashboardPage,
}));
const BillingPage = lazy(async () => ({
  default: (await import('./pages/billing/BillingPage.tsx')).BillingPage,
}));
const WorkspacePage = lazy(async () => ({
  default: (await import('./pages/workspace/WorkspacePage.tsx')).WorkspacePage,
}));

const PUBLIC_ONLY = new Set(['/login', '/register', '/forgot-password']);
/** Screens outside the signed-in shell: a page load there does not read the shell's data. */
const OUTSIDE_SHELL = new Set([
  ...PUBLIC_ONLY,
  '/reset-password',
  '/verify-email',
  '/check-email',
  '/invite',
]);

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

export function App() {
  const { path, query } = useLocation();
  const queryClient = useQueryClient();
  const me = useQuery(meQuery);
  // On a page load into the shell, its billing summary and workspace list go out in the same batch
  // as `auth.me` (one request) rather than in a second one once `me` has answered.
  const firstPath = useRef(path);
  useEffect(() => {
    if (!OUTSIDE_SHELL.has(firstPath.current)) prefetchShell(queryClient);
  }, [queryClient]);

  // Pages that work whether or not someone is signed in.
  if (path === '/reset-password') return <ResetPasswordPage />;
  if (me.isPending)
    return (
      <div className="splash">
        <Spinner label="Loading the app…" />
      </div>
    );
  if (path === '/verify-email') return <VerifyEmailPage signedIn={Boolean(me.data)} />;

  if (me.isError) {
    return (
      <div className="splash">
        <ErrorNote error={me.error} title="The service did not answer" onRetry={() => void me.refetch()} />
      </div>
    );
  }
  // The invite link works signed out (sign in or register, then back) and signed in (join).
  if (path === '/invite') return <InvitePage me={me.data} />;
  if (!me.data) {
    if (path === '/login') return <SignInPage />;
    if (path === '/register') return <RegisterPage />;
    if (path === '/forgot-password') return <ForgotPasswordPage />;
    const next = path === '/' ? '' : `?next=${encodeURIComponent(path + window.location.search)}`;
    return <Redirect to={`/login${next}`} />;
  }
  if (PUBLIC_ONLY.has(path)) return <Redirect to={safeNext(query.get('next'))} />;
  if (path === '/check-email') return <CheckEmailPage me={me.data} />;
  return <Shell me={me.data}>{route(path)}</Shell>;
}

function route(path: string): ReactNode {
  if (path === '/') return <Redirect to="/ask" />;
  if (path === '/ask') return <AskPage conversationId={null} />;
  let p = match('/ask/:conversationId', path);
  if (p) return <AskPage conversationId={p.conversationId ?? null} />;
  if (path === '/connections') return <ConnectionsPage />;
  if (path === '/connections/new') return <ConnectionFormPage connectionId={null} />;
  p = match('/connections/:id/discovery', path);
  if (p?.id) return <DiscoveryPage key={p.id} connectionId={p.id} />;
  p = match('/connections/:id/schema', path);
  if (p?.id) return <SchemaPage connectionId={p.id} />;
  p = match('/connections/:id', path);
  if (p?.id) return <ConnectionFormPage connectionId={p.id} />;
  if (path === '/history') return <HistoryPage />;
  if (path === '/dashboards') return <DashboardsPage />;
  p = match('/dashboards/:id', path);
  if (p?.id) return <DashboardPage key={p.id} dashboardId={p.id} />;
  if (path === '/billing') return <BillingPage />;
  if (path === '/workspace') return <WorkspacePage />;
  return (
    <div className="page">
      <h1>Page not found</h1>
      <p className="muted">
        There is nothing at <code>{path}</code>. <Link to="/ask">Go to Ask</Link>.
      </p>
    </div>
  );
}

const NAV = [
  { to: '/ask', label: 'Ask', icon: 'M4 5h16v10H9l-5 4z' },
  {
    to: '/connections',
    label: 'Connections',
    icon: 'M12 3c4.4 0 8 1.3 8 3v12c0 1.7-3.6 3-8 3s-8-1.3-8-3V6c0-1.7 3.6-3 8-3zm8 3c0 1.7-3.6 3-8 3S4 7.7 4 6m16 6c0 1.7-3.6 3-8 3s-8-1.3-8-3',
  },
  { to: '/dashboards', label: 'Dashboards', icon: 'M4 4h7v9H4zM13 4h7v5h-7zM13 11h7v9h-7zM4 15h7v5H4z' },
  { to: '/history', label: 'History', icon: 'M12 7v5l3 2M21 12a9 9 0 1 1-9-9 9 9 0 0 1 9 9z' },
  {
    to: '/workspace',
    label: 'Workspace',
    icon: 'M16 19v-1a4 4 0 0 0-4-4H7a4 4 0 0 0-4 4v1M9.5 10a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM21 19v-1a4 4 0 0 0-3-3.9M15.5 4.1a3 3 0 0 1 0 5.8',
  },
  { to: '/billing', label: 'Billing', icon: 'M3 6h18v12H3zM3 10h18M7 15h4' },
];

function Shell({ me, children }: { me: Me; children: ReactNode }) {
  const { path } = useLocation();
  const [navOpen, setNavOpen] = useState(false);
  // Cached 5 minutes: the quota banner, the billing page and the plan badge all read this one query.
  const summary = useBillingSummary();
  usePlanFromSummary(summary.data);
  useWorkspaceDrift(summary.data?.workspace_id);
  useEffect(() => setNavOpen(false), [path]);
  return (
    <div className={`shell${navOpen ? ' nav-open' : ''}`}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className="sidebar" aria-label="Main navigation">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" />
          <span>Query Service</span>
        </div>
        <nav>
          <ul>
            {NAV.map((item) => {
              const active = path === item.to || path.startsWith(item.to + '/');
              return (
                <li key={item.to}>
                  <Link
                    to={item.to}
                    className={`nav-link${active ? ' active' : ''}`}
                    aria-current={active ? 'page' : undefined}
                  >
                    <svg viewBox="0 0 24 24" aria-hidden="true" className="nav-icon">
                      <path d={item.icon} />
                    </svg>
                    {item.label}
                  </Link>
                </li>
              );
            })}
          </ul>
        </nav>
        <div className="sidebar-foot">
          <a href="/docs" className="nav-link subtle">
            API reference
          </a>
        </div>
      </aside>
      <div className="main-col">
        <header className="topbar">
          <button
            type="button"
            className="btn btn-ghost nav-toggle"
            aria-label="Open navigation"
            aria-expanded={navOpen}
            onClick={() => setNavOpen((v) => !v)}
          >
            <svg viewBox="0 0 24 24" aria-hidden="true" className="nav-icon">
              <path d="M4 6h16M4 12h16M4 18h16" />
            </svg>
          </button>
          <WorkspaceSwitcher me={me} />
          <UserMenu me={me} />
        </header>
        {!me.email_verified ? <VerifyBanner me={me} /> : null}
        {summary.data && summary.data.workspace_id === me.workspace.id ? (
          <QuotaBanner summary={summary.data} canManage={me.workspace.role === 'owner'} />
        ) : null}
        <main id="main" className="content" tabIndex={-1}>
          <Suspense fallback={<Spinner />}>{children}</Suspense>
        </main>
      </div>
    </div>
  );
}

function VerifyBanner({ me }: { me: Me }) {
  const resend = useMutation({ mutationFn: () => trpc.auth.resendVerification.mutate({}) });
  return (
    <div className="banner" role="region" aria-label="Email confirmation">
      <span>
        Confirm <strong>{me.user.email}</strong> with the link we emailed you.
      </span>
      {resend.data ? <span className="muted">{resend.data.detail}</span> : null}
      {resend.error ? <span className="text-danger">{toApiError(resend.error).message}</span> : null}
      <button
        type="button"
        className="btn btn-sm btn-ghost"
        onClick={() => resend.mutate()}
        disabled={resend.isPending}
      >
        Resend the link
      </button>
    </div>
  );
}

function UserMenu({ me }: { me: Me }) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  const logout = useSignOut();
  useEffect(() => {
    if (!open) return;
    const onDoc = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setOpen(false);
    };
    document.addEventListener('mousedown', onDoc);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onDoc);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);
  const label = me.user.name ?? me.user.email;
  return (
    <div className="user-menu" ref={ref}>
      <button
        type="button"
        className="btn btn-ghost user-button"
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen((v) => !v)}
      >
        <span className="avatar" aria-hidden="true">
          {label.slice(0, 1).toUpperCase()}
        </span>
        <span className="user-label">{label}</span>
      </button>
      {open ? (
        <div className="menu" role="menu" aria-label="Account">
          <div className="menu-header">
            <div className="menu-strong">{me.user.email}</div>
            <div className="muted small">
              {me.email_verified ? 'Email confirmed' : 'Email not confirmed yet'} · {me.workspace.role}
            </div>
          </div>
          <button
            type="button"
            role="menuitem"
            className="menu-item"
            onClick={() => logout.mutate()}
            disabled={logout.isPending}
          >
            Sign out
          </button>
        </div>
      ) : null}
    </div>
  );
}
