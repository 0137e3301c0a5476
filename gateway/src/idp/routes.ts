/**
 * `/idp`: the identity provider's own endpoints (discovery, JWKS, authorize, token, device,
 * revocation, end-session), passed through to oidc-provider untouched, and the login interaction:
 * username and password, then (with MFA on) a TOTP code.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Accounts, IdpAccount } from './accounts';
import { loginPage, page, totpPage } from './pages';
import type { Provider } from './provider';
import { TokenHooks } from './token-hooks';

/** The provider is made once the listening port (and so the issuer URL) is known. */
export interface IdpHolder {
  provider?: Provider;
  hooks?: TokenHooks;
  accounts: Accounts;
}

/** Password or code failures one interaction may have before it ends with `access_denied`. */
const MAX_FAILURES = 5;

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
    const account = holder.accounts.checkPassword(login, field(req, 'password'));
    if (!account) return failed(provider, req, reply, p, () => html(reply, loginPage(`${base}/login`, 'FirecREST for VS Code', 'Invalid username or password.', login), 401));
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
    if (!holder.accounts.checkTotp(p.account, field(req, 'code'))) {
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
      const path = r.url.split('?')[0];
      const hooks = holder.hooks;
      if (hooks && r.method === 'POST' && path === '/token') {
        let form: URLSearchParams;
        try {
          form = await TokenHooks.readForm(r);
        } catch {
          reply.raw.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_request', error_description: 'request body too large' }));
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
