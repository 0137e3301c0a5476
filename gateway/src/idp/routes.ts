/**
 * `/idp`: the identity provider's own endpoints (discovery, JWKS, authorize, token, device,
 * revocation, end-session), passed through to oidc-provider untouched, and the login interaction:
 * username and password, then (with MFA on) a TOTP code.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FailureThrottle, throttleKey } from '../http/failure-throttle';
import type { Accounts, IdpAccount } from './accounts';
import { loginPage, page, totpPage } from './pages';
import type { Provider } from './provider';
import { TokenHooks } from './token-hooks';

/** The provider is made once the listening port (and so the issuer URL) is known. */
export interface IdpHolder {
  provider?: Provider;
  hooks?: TokenHooks;
  accounts: Accounts;
  /** Wrong device user codes per source address (RFC 8628 §5.1), counted by the provider's input page. */
  userCodes: FailureThrottle;
}

/** Password or code failures one interaction may have before it ends with `access_denied`. */
const MAX_FAILURES = 5;
/** Failed passwords or codes for one account from one address within a minute, across interactions. */
export const MAX_ACCOUNT_FAILURES = 10;
/** Failed passwords or codes from one address within a minute, whatever accounts it tries. */
export const MAX_ADDRESS_FAILURES = 50;
/** Wrong device user codes from one address within a minute. */
export const MAX_USER_CODE_FAILURES = 10;

interface Pending {
  account?: IdpAccount;
  failures: number;
}

function html(reply: FastifyReply, body: string, status = 200): FastifyReply {
  return reply.code(status).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').send(body);
}

function field(req: FastifyRequest, name: string): string {
  const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
  return typeof body[name] === 'string' ? body[name] : '';
}

export async function idpRoutes(app: FastifyInstance, holder: IdpHolder): Promise<void> {
  /** Interaction uid -> progress (the account once the password matched); dropped when it ends. */
  const pending = new Map<string, Pending>();
  const progress = (uid: string): Pending => {
    let p = pending.get(uid);
    if (!p) {
      if (pending.size > 10_000) pending.clear();
      p = { failures: 0 };
      pending.set(uid, p);
    }
    return p;
  };

  // Guessing is slowed across interactions (a new sign-in attempt starts with a clean count): per
  // account and source address, and per address. Past either limit every password or code from
  // there is refused, the right one too, until the oldest failure leaves the window; a person at
  // another address is not locked out by a guesser.
  const perAccount = new FailureThrottle(MAX_ACCOUNT_FAILURES);
  const perAddress = new FailureThrottle(MAX_ADDRESS_FAILURES);
  const guessKeys = (req: FastifyRequest, login: string): [string, string] => [throttleKey(login.toLowerCase(), req.ip), req.ip];
  const throttled = (req: FastifyRequest, login: string): number => {
    const [account, address] = guessKeys(req, login);
    return Math.max(perAccount.waitSeconds(account), perAddress.waitSeconds(address));
  };
  const countFailure = (req: FastifyRequest, login: string): void => {
    const [account, address] = guessKeys(req, login);
    perAccount.failed(account);
    perAddress.failed(address);
  };
  const tooMany = (reply: FastifyReply, wait: number, again: string): FastifyReply =>
    html(reply.header('retry-after', String(wait)), page('Too many attempts', `<p>Too many failed sign-in attempts from here. Wait ${wait} s, then <a href="${again}">try again</a>.</p>`), 429);

  const ready = (reply: FastifyReply): Provider | undefined => {
    if (!holder.provider) void html(reply, page('Not ready', '<p>The identity provider is starting.</p>'), 503);
    return holder.provider;
  };

  /** The interaction of this request, checked against the uid of the URL (and its cookie). */
  const details = async (provider: Provider, req: FastifyRequest, reply: FastifyReply) => {
    try {
      const d = await provider.interactionDetails(req.raw, reply.raw);
      const { uid } = req.params as { uid: string };
      if (d.uid !== uid) throw new Error('interaction mismatch');
      return d;
    } catch {
      void html(reply, page('Sign-in expired', '<p>This sign-in has expired or was already used. Start it again from your editor.</p>'), 400);
      return undefined;
    }
  };

  const finish = async (provider: Provider, req: FastifyRequest, reply: FastifyReply, result: Parameters<Provider['interactionResult']>[2]): Promise<FastifyReply> => {
    pending.delete((req.params as { uid: string }).uid);
    const to = await provider.interactionResult(req.raw, reply.raw, result, { mergeWithLastSubmission: false });
    return reply.code(303).header('location', to).header('cache-control', 'no-store').send();
  };

  const failed = async (provider: Provider, req: FastifyRequest, reply: FastifyReply, p: Pending, again: () => FastifyReply): Promise<FastifyReply> => {
    p.failures++;
    if (p.failures >= MAX_FAILURES) return finish(provider, req, reply, { error: 'access_denied', error_description: 'Too many failed sign-in attempts' });
    return again();
  };

  app.get('/interaction/:uid', async (req, reply) => {
    const provider = ready(reply);
    if (!provider) return reply;
    const d = await details(provider, req, reply);
    if (!d) return reply;
    const base = `/idp/interaction/${d.uid}`;
    const p = pending.get(d.uid);
    if (p?.account && holder.accounts.mfa) return html(reply, totpPage(`${base}/totp`));
    if (d.prompt.name === 'login') return html(reply, loginPage(`${base}/login`, 'FirecREST for VS Code'));
    // Consent is given by the grant made for the first-party client (provider.ts): nothing to ask.
    const grantId = d.grantId;
    return finish(provider, req, reply, grantId ? { consent: { grantId } } : {});
  });

  app.post('/interaction/:uid/login', async (req, reply) => {
    const provider = ready(reply);
    if (!provider) return reply;
    const d = await details(provider, req, reply);
    if (!d) return reply;
    const base = `/idp/interaction/${d.uid}`;
    const p = progress(d.uid);
    const login = field(req, 'login').trim();
    const wait = throttled(req, login);
    if (wait > 0) return tooMany(reply, wait, base);
    const account = holder.accounts.checkPassword(login, field(req, 'password'));
    if (!account) {
      countFailure(req, login);
      return failed(provider, req, reply, p, () => html(reply, loginPage(`${base}/login`, 'FirecREST for VS Code', 'Invalid username or password.', login), 401));
    }
    if (holder.accounts.mfa) {
      p.account = account;
      return reply.code(303).header('location', base).send();
    }
    return finish(provider, req, reply, { login: { accountId: account.login, amr: ['pwd'] } });
  });

  app.post('/interaction/:uid/totp', async (req, reply) => {
    const provider = ready(reply);
    if (!provider) return reply;
    const d = await details(provider, req, reply);
    if (!d) return reply;
    const p = pending.get(d.uid);
    if (!p?.account) return reply.code(303).header('location', `/idp/interaction/${d.uid}`).send();
    const wait = throttled(req, p.account.login);
    if (wait > 0) return tooMany(reply, wait, `/idp/interaction/${d.uid}`);
    if (!holder.accounts.checkTotp(p.account, field(req, 'code'))) {
      countFailure(req, p.account.login);
      return failed(provider, req, reply, p, () => html(reply, totpPage(`/idp/interaction/${d.uid}/totp`, 'That code is not valid. Wait for the next one and try again.'), 401));
    }
    return finish(provider, req, reply, { login: { accountId: p.account.login, amr: ['pwd', 'otp'] } });
  });

  app.post('/interaction/:uid/abort', async (req, reply) => {
    const provider = ready(reply);
    if (!provider) return reply;
    if (!(await details(provider, req, reply))) return reply;
    return finish(provider, req, reply, { error: 'access_denied', error_description: 'The user cancelled the sign-in' });
  });

  // Everything else is oidc-provider's. Its body parser reads the request itself: no parser here.
  await app.register(async (raw) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
    let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
    const pass = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      const provider = ready(reply);
      if (!provider) return reply;
      handler ??= provider.callback() as (req: IncomingMessage, res: ServerResponse) => void;
      reply.hijack();
      // Mounted under /idp: oidc-provider finds its mount path from originalUrl (as under Express).
      const r = req.raw as IncomingMessage & { originalUrl?: string; body?: unknown };
      r.originalUrl = r.url;
      r.url = (r.url ?? '/').slice('/idp'.length) || '/';
      // The issuer is one fixed address, whatever Host a request came through: a page shown through
      // a port proxy that strips its prefix (a browser VS Code's /proxy/<port>/ for a loopback
      // address) posts its form to the issuer itself, which the browser on this machine reaches.
      r.headers.host = new URL(provider.issuer).host;
      const path = r.url.split('?')[0];
      const hooks = holder.hooks;
      if (r.method === 'POST' && path === '/device') {
        // A user code is short: guesses are refused past the limit, the right code too (§5.1).
        const wait = holder.userCodes.waitSeconds(req.ip);
        if (wait > 0) {
          reply.raw.writeHead(429, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'retry-after': String(wait) })
            .end(page('Too many attempts', `<p>Too many wrong codes from here. Wait ${wait} s, then enter the code again.</p>`));
          return reply;
        }
      }
      if (hooks && r.method === 'POST' && path === '/token') {
        let form: URLSearchParams;
        try {
          form = await TokenHooks.readForm(r);
        } catch {
          // The rest of the body is unread, so the connection cannot carry another request: it is
          // closed after this answer instead of hanging a pooled client's next request.
          reply.raw.writeHead(400, { 'content-type': 'application/json', 'cache-control': 'no-store', connection: 'close' })
            .end(JSON.stringify({ error: 'invalid_request', error_description: 'request body too large' }));
          return reply;
        }
        const slow = hooks.pace(form);
        if (slow) {
          reply.raw.writeHead(400, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(slow));
          return reply;
        }
        hooks.spoilIdToken(reply.raw);
      } else if (hooks && r.method === 'POST' && path === '/device/auth') {
        hooks.advertiseInterval(reply.raw);
      }
      handler(r, reply.raw);
      return reply;
    };
    raw.all('/', pass);
    raw.all('/*', pass);
  });
}
