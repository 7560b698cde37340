import { readCookie, setCookie } from '../http/cookies.js';
import type { PartialHandlerMap } from '../http/handler-types.js';
import { STATE_COOKIE, STATE_TTL_SECONDS } from '../services/identity/oauth-login-service.js';
import type { HandlerDeps } from './deps.js';

type Ops = 'listLoginProviders' | 'startOAuthLogin' | 'oauthCallback' | 'createSession' | 'logout';

const CALLBACK_PATH = '/api/v1/auth/callback';

/** OAuth login, callback, sign-in with an API key, and logout. */
export function createAuthHandlers(deps: HandlerDeps): PartialHandlerMap<Ops> {
  const { oauthProviders, oauthLogin, keySessions, sessions, rateLimiter } = deps.services;
  const secure = deps.publicUrl.secureCookies;
  return {
    listLoginProviders: async (req) => {
      await rateLimiter.checkAddress(req.ip);
      return { status: 200, body: await oauthProviders.listEnabled() };
    },
    startOAuthLogin: async (req) => {
      await rateLimiter.checkAddress(req.ip);
      const { location, stateCookie } = await oauthLogin.start(req.params.provider_type, {
        baseUrl: deps.publicUrl.of(req.headers),
        invitation: req.query.invitation,
        redirectTo: req.query.redirect_to,
      });
      return {
        status: 302,
        body: undefined,
        headers: {
          Location: location,
          'Set-Cookie': setCookie(STATE_COOKIE, stateCookie, { maxAgeSeconds: STATE_TTL_SECONDS, path: CALLBACK_PATH, secure }),
        },
      };
    },
    oauthCallback: async (req) => {
      await rateLimiter.checkAddress(req.ip);
      const { session, redirectTo } = await oauthLogin.callback(req.params.provider_type, {
        baseUrl: deps.publicUrl.of(req.headers),
        stateCookie: readCookie(req.headers, STATE_COOKIE),
        query: req.query,
      });
      return {
        status: 302,
        body: undefined,
        headers: {
          Location: redirectTo,
          'Set-Cookie': [
            setCookie('access_token', session.token, { maxAgeSeconds: session.maxAgeMs / 1000, secure }),
            setCookie(STATE_COOKIE, '', { maxAgeSeconds: 0, path: CALLBACK_PATH, secure }),
          ],
        },
      };
    },
    createSession: async (req) => {
      await rateLimiter.checkAddress(req.ip);
      const { session, body } = await keySessions.signIn(req.body.api_key, req.ip);
      return {
        status: 200,
        body,
        headers: { 'Set-Cookie': setCookie('access_token', session.token, { maxAgeSeconds: session.maxAgeMs / 1000, secure }) },
      };
    },
    logout: async (req) => {
      const sessionId = req.principal?.sessionId;
      if (sessionId) await sessions.revoke(sessionId);
      return { status: 204, body: undefined, headers: { 'Set-Cookie': setCookie('access_token', '', { maxAgeSeconds: 0, secure }) } };
    },
  };
}
