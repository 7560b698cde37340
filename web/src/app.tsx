import type { ComponentChildren } from 'preact';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { api, call, onUnauthorized } from './lib/api.js';
import { atLeast, SessionContext, useSession, type Session, type User } from './lib/session.js';
import { Loading } from './ui/kit.js';
import { AiProvidersView } from './views/ai-providers.js';
import { ApiKeysView } from './views/api-keys.js';
import { AuthSettingsView } from './views/auth-settings.js';
import { BundleDetailView } from './views/bundle-detail.js';
import { BundlesView } from './views/bundles.js';
import { CatalogAsCodeView } from './views/catalog-as-code.js';
import { DashboardView } from './views/dashboard.js';
import { GatewaySettingsView } from './views/gateway-settings.js';
import { GeneralSettingsView } from './views/general-settings.js';
import { GenerationJobView, GenerationJobsView } from './views/generation-jobs.js';
import { InvitationAcceptView } from './views/invitation-accept.js';
import { LoginView } from './views/login.js';
import { NotFoundView } from './views/not-found.js';
import { OAuthConsentView } from './views/oauth-consent.js';
import { ConnectedAppsView } from './views/connected-apps.js';
import { ServerDetailView } from './views/server-detail.js';
import { ServersView } from './views/servers.js';
import { SkillsView } from './views/skills.js';
import { TeamsView } from './views/teams.js';
import { PoliciesView } from './views/policies.js';
import { GuardrailsView } from './views/guardrails.js';
import { ToolChangesView } from './views/tool-changes.js';
import { UsersView } from './views/users.js';
import { UpstreamConnectionsView } from './views/upstream-connections.js';

/** Links the client router handles; `/api/…` (OAuth login) and `/mcp/…` are real navigations. */
const CONSOLE_LINKS = /^\/(?!api\/|mcp\/)/;

export function App() {
  return (
    <LocationProvider scope={CONSOLE_LINKS}>
      <Root />
    </LocationProvider>
  );
}

type AuthState = { status: 'checking' } | { status: 'out'; reason: string | null } | { status: 'in'; user: User };

function Root() {
  const location = useLocation();
  const [auth, setAuth] = useState<AuthState>({ status: 'checking' });

  useEffect(() => {
    call(api.GET('/api/v1/users/me'), { quiet401: true }).then(
      (user) => setAuth({ status: 'in', user }),
      () => setAuth({ status: 'out', reason: null }),
    );
    return onUnauthorized(() => setAuth({ status: 'out', reason: 'Your session has ended. Please sign in again.' }));
  }, []);

  const signOut = useCallback(async () => {
    await call(api.POST('/api/v1/auth/logout'), { quiet401: true }).catch(() => undefined);
    setAuth({ status: 'out', reason: 'You have signed out.' });
    location.route('/', true);
  }, [location]);

  const session = useMemo<Session | null>(() => (auth.status === 'in' ? { user: auth.user, signOut } : null), [auth, signOut]);

  // The invitation page is public: it works signed in or not.
  if (location.path === '/invitations/accept') {
    return (
      <PublicFrame>
        <InvitationAcceptView />
      </PublicFrame>
    );
  }
  if (auth.status === 'checking') {
    return (
      <PublicFrame>
        <Loading label="Checking your session…" />
      </PublicFrame>
    );
  }
  if (auth.status === 'out') {
    return (
      <PublicFrame>
        <LoginView reason={auth.reason} onSignedIn={(user) => setAuth({ status: 'in', user })} />
      </PublicFrame>
    );
  }
  // The OAuth consent page stands alone (no navigation): the person decides, then leaves for the application.
  if (location.path === '/oauth/consent') {
    return (
      <SessionContext.Provider value={session}>
        <PublicFrame>
          <OAuthConsentView />
        </PublicFrame>
      </SessionContext.Provider>
    );
  }
  return (
    <SessionContext.Provider value={session}>
      <Shell />
    </SessionContext.Provider>
  );
}

function PublicFrame(props: { children: ComponentChildren }) {
  return (
    <div class="public">
      <div class="brand big">
        <Logo /> Toolgate
      </div>
      <main id="main" class="public-main">
        {props.children}
      </main>
    </div>
  );
}

function Logo() {
  return (
    <svg class="logo" viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="7" fill="currentColor" />
      <path d="M9 10h14v3h-5.5v10h-3V13H9z" fill="#fff" />
    </svg>
  );
}

interface NavItem {
  href: string;
  label: string;
  admin?: boolean;
}

const NAV: { group: string; items: NavItem[] }[] = [
  { group: 'Overview', items: [{ href: '/dashboard', label: 'Dashboard', admin: true }] },
  {
    group: 'Gateway',
    items: [
      { href: '/servers', label: 'Servers' },
      { href: '/bundles', label: 'Bundles' },
      { href: '/tool-changes', label: 'Tool changes', admin: true },
      { href: '/gateway', label: 'My gateway' },
    ],
  },
  {
    group: 'AI',
    items: [
      { href: '/generation', label: 'Server generation', admin: true },
      { href: '/skills', label: 'Skills' },
      { href: '/settings/ai', label: 'AI providers', admin: true },
    ],
  },
  {
    group: 'Access',
    items: [
      { href: '/keys', label: 'API keys' },
      { href: '/apps', label: 'Connected apps' },
      { href: '/connections', label: 'Connections' },
      { href: '/users', label: 'Users & invitations', admin: true },
      { href: '/teams', label: 'Teams', admin: true },
      { href: '/policies', label: 'Tool policy', admin: true },
      { href: '/guardrails', label: 'Guardrails', admin: true },
      { href: '/settings/auth', label: 'Sign-in & OAuth', admin: true },
    ],
  },
  {
    group: 'Settings',
    items: [
      { href: '/settings/general', label: 'General settings' },
      { href: '/settings/registry', label: 'Registry & configuration' },
    ],
  },
];

function Shell() {
  const { user, signOut } = useSession();
  const location = useLocation();
  const isAdmin = atLeast(user.role, 'admin');
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [location.path]);

  const current = (href: string) => location.path === href || location.path.startsWith(`${href}/`);

  return (
    <div class="shell">
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="topbar">
        <button
          type="button"
          class="icon-btn menu-btn"
          aria-expanded={menuOpen}
          aria-controls="sidenav"
          aria-label="Menu"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          ☰
        </button>
        <a class="brand" href={isAdmin ? '/dashboard' : '/bundles'}>
          <Logo /> Toolgate
        </a>
        <div class="user">
          <span class="who">
            <span class="name">{user.name}</span> <span class="role">{user.role}</span>
          </span>
          <button type="button" class="btn small" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <nav id="sidenav" class={`sidenav${menuOpen ? ' open' : ''}`} aria-label="Console">
        {NAV.map((g) => {
          const items = g.items.filter((i) => !i.admin || isAdmin);
          if (!items.length) return null;
          return (
            <div class="nav-group" key={g.group}>
              <div class="nav-title">{g.group}</div>
              <ul>
                {items.map((i) => (
                  <li key={i.href}>
                    <a href={i.href} aria-current={current(i.href) ? 'page' : undefined}>
                      {i.label}
                    </a>
                  </li>
                ))}
              </ul>
            </div>
          );
        })}
      </nav>
      <main id="main" class="content" tabIndex={-1}>
        <Router>
          <Route path="/" component={Home} />
          <Route path="/login" component={Home} />
          <Route path="/dashboard" component={DashboardView} />
          <Route path="/servers" component={ServersView} />
          <Route path="/servers/:id" component={ServerDetailView} />
          <Route path="/bundles" component={BundlesView} />
          <Route path="/bundles/:id" component={BundleDetailView} />
          <Route path="/gateway" component={GatewaySettingsView} />
          <Route path="/generation" component={GenerationJobsView} />
          <Route path="/generation/:id" component={GenerationJobView} />
          <Route path="/skills" component={SkillsView} />
          <Route path="/settings/ai" component={AiProvidersView} />
          <Route path="/keys" component={ApiKeysView} />
          <Route path="/apps" component={ConnectedAppsView} />
          <Route path="/connections" component={UpstreamConnectionsView} />
          <Route path="/users" component={UsersView} />
          <Route path="/teams" component={TeamsView} />
          <Route path="/policies" component={PoliciesView} />
          <Route path="/guardrails" component={GuardrailsView} />
          <Route path="/tool-changes" component={ToolChangesView} />
          <Route path="/settings/auth" component={AuthSettingsView} />
          <Route path="/settings/general" component={GeneralSettingsView} />
          <Route path="/settings/registry" component={CatalogAsCodeView} />
          <Route default component={NotFoundView} />
        </Router>
      </main>
    </div>
  );
}

/** `/`: admins land on the dashboard, members on the bundles. */
function Home() {
  const { user } = useSession();
  const location = useLocation();
  useEffect(() => location.route(atLeast(user.role, 'admin') ? '/dashboard' : '/bundles', true), []);
  return <Loading />;
}
