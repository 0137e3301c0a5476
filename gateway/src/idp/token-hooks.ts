/**
 * What the gateway adds around oidc-provider's token and device endpoints:
 * - device polling pace (RFC 8628 §3.5): a poll sooner than the required interval is answered
 *   `slow_down` (the client then adds 5 s to its own interval). oidc-provider itself never says
 *   `slow_down`;
 * - the `interval` the device authorization answer advertises;
 * - the ID token fault switch of the admin API (a wrong `nonce`, or a signature by a key that is
 *   not in the JWKS), for the client's checks: a real identity provider cannot be made to do that.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as JoseModule from 'jose' with { 'resolution-mode': 'import' };
import type { IdpKeys } from './provider';

export type IdTokenFault = 'nonce' | 'foreignKey' | undefined;

export interface IdpRuntime {
  /** Seconds the device authorization answer advertises (default 5). */
  deviceInterval: number;
  /** Seconds the token endpoint requires between polls of one device code (default = advertised). */
  deviceMinInterval: number;
  idTokenFault: IdTokenFault;
}

interface Poll {
  last: number;
  intervalMs: number;
}

export class TokenHooks {
  private readonly polls = new Map<string, Poll>();
  private foreign?: JoseModule.CryptoKey;

  constructor(
    readonly runtime: IdpRuntime,
    private readonly keys: IdpKeys,
  ) {}

  /**
   * Reads a form body that oidc-provider will then take from `req.body` (its parser's fallback;
   * it says once on stderr that it found a parsed body).
   */
  static async readForm(req: IncomingMessage & { body?: unknown }): Promise<URLSearchParams> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > 56 * 1024) throw new Error('request body too large');
      chunks.push(chunk as Buffer);
    }
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    req.body = Object.fromEntries(form);
    return form;
  }

  /** The `slow_down` answer for a device code polled too soon, or undefined to go on. */
  pace(form: URLSearchParams, now = Date.now()): { error: string; error_description: string } | undefined {
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:device_code') return undefined;
    const code = form.get('device_code');
    if (!code) return undefined;
    if (this.polls.size > 10_000) this.polls.clear();
    const p = this.polls.get(code);
    if (!p) {
      this.polls.set(code, { last: now, intervalMs: this.runtime.deviceMinInterval * 1000 });
      return undefined;
    }
    // 100 ms of slack for timers that fire a little early.
    if (now - p.last < p.intervalMs - 100) {
      p.last = now;
      return { error: 'slow_down', error_description: `polling too fast: wait at least ${p.intervalMs / 1000} s between requests` };
    }
    p.last = now;
    return undefined;
  }

  /** Rewrites the JSON answer oidc-provider is about to send, when `change` returns a new body. */
  static rewriteJson(res: ServerResponse, change: (body: Record<string, unknown>) => Promise<Record<string, unknown> | undefined>): void {
    const end = res.end.bind(res) as (chunk?: unknown, ...rest: unknown[]) => ServerResponse;
    (res as { end: unknown }).end = (chunk?: unknown, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : undefined;
      if (text === undefined || res.statusCode !== 200) return end(chunk, ...rest);
      void (async () => {
        let out = text;
        try {
          const next = await change(JSON.parse(text) as Record<string, unknown>);
          if (next) out = JSON.stringify(next);
        } catch {
          // not JSON: sent as it was
        }
        if (!res.headersSent) res.setHeader('content-length', Buffer.byteLength(out));
        end(out);
      })();
      return res;
    };
  }

  /** The device authorization answer with the advertised interval. */
  advertiseInterval(res: ServerResponse): void {
    TokenHooks.rewriteJson(res, async (body) => ({ ...body, interval: this.runtime.deviceInterval }));
  }

  /** The token answer with its ID token spoiled as the fault switch says. */
  spoilIdToken(res: ServerResponse): void {
    const fault = this.runtime.idTokenFault;
    if (!fault) return;
    TokenHooks.rewriteJson(res, async (body) => {
      if (typeof body.id_token !== 'string') return undefined;
      const jose = await import('jose');
      const header = jose.decodeProtectedHeader(body.id_token);
      const claims = jose.decodeJwt(body.id_token);
      let key: JoseModule.CryptoKey | Uint8Array;
      if (fault === 'foreignKey') {
        this.foreign ??= (await jose.generateKeyPair('RS256')).privateKey;
        key = this.foreign;
      } else {
        key = await jose.importJWK(this.keys.privateJwk, 'RS256');
        claims.nonce = 'not-the-nonce-of-this-sign-in';
      }
      const idToken = await new jose.SignJWT(claims).setProtectedHeader({ alg: 'RS256', typ: header.typ, kid: header.kid }).sign(key);
      return { ...body, id_token: idToken };
    });
  }
}
