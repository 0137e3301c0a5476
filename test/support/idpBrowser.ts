/**
 * A person at the gateway's identity provider, played over HTTP: follows redirects, keeps cookies,
 * fills the login, TOTP and device forms. Stops at the loopback redirect of a sign-in and
 * delivers it (optionally changed) like a browser would.
 */
import { TOTP, Secret } from 'otpauth';

export interface Person {
  login: string;
  password: string;
  totpSecret?: string;
}

export interface BrowseResult {
  /** Pages seen, by their <title>. */
  titles: string[];
  /** TOTP codes entered. */
  totpAsked: number;
  /** The loopback callback's answer, when the flow reached it. */
  callbackStatus?: number;
}

function titleOf(html: string): string {
  return /<title>([^<]*)<\/title>/i.exec(html)?.[1] ?? '';
}

/** The named form of a page: its action and its hidden and default fields. */
export function formOf(html: string, match: RegExp = /<form[^>]*method="post"[^>]*>/i): { action: string; fields: Record<string, string> } | undefined {
  const start = html.search(match);
  if (start < 0) return undefined;
  const end = html.indexOf('</form>', start);
  const form = html.slice(start, end < 0 ? undefined : end);
  const action = /action="([^"]*)"/i.exec(form)?.[1]?.replace(/&amp;/g, '&') ?? '';
  const fields: Record<string, string> = {};
  for (const m of form.matchAll(/<input[^>]*>/gi)) {
    const name = /name="([^"]*)"/i.exec(m[0])?.[1];
    if (name) fields[name] = (/value="([^"]*)"/i.exec(m[0])?.[1] ?? '').replace(/&amp;/g, '&');
  }
  return { action, fields };
}

export class IdpBrowser {
  private readonly cookies = new Map<string, string>();
  readonly result: BrowseResult = { titles: [], totpAsked: 0 };

  constructor(
    private readonly person: Person,
    /** `fetch`: how requests go out (from another source address, say); the global fetch by default. */
    private readonly o: { changeCallback?: (url: URL) => URL; captureCallback?: (url: URL) => void; fetch?: typeof fetch } = {},
  ) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(res: Response): void {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(c) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** One request without following redirects. */
  async request(url: string, form?: Record<string, string>): Promise<Response> {
    const res = await (this.o.fetch ?? fetch)(url, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: this.cookieHeader(), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    this.keep(res);
    return res;
  }

  private totpCode(): string {
    if (!this.person.totpSecret) throw new Error('the identity provider asks for a code, and this person has no TOTP secret');
    const totp = new TOTP({ secret: Secret.fromBase32(this.person.totpSecret), digits: 6, period: 30, algorithm: 'SHA1' });
    return totp.generate();
  }

  /**
   * Goes from `url` through every page until the loopback redirect (delivered), a device success
   * page, or a page it cannot fill. Returns the last HTML page.
   */
  async browse(start: string, extra: { userCode?: string } = {}): Promise<string> {
    let url = start;
    let form: Record<string, string> | undefined;
    for (let hop = 0; hop < 30; hop++) {
      const res = await this.request(url, form);
      form = undefined;
      if (res.status >= 300 && res.status < 400) {
        const next = new URL(res.headers.get('location') ?? '', url);
        await res.body?.cancel();
        if (next.pathname === '/callback' && next.hostname === '127.0.0.1' && next.origin !== new URL(start).origin) {
          if (this.o.captureCallback) {
            this.o.captureCallback(next);
            return '';
          }
          const delivered = this.o.changeCallback ? this.o.changeCallback(next) : next;
          const cb = await fetch(delivered, { redirect: 'manual' });
          this.result.callbackStatus = cb.status;
          return cb.text();
        }
        url = next.href;
        continue;
      }
      const html = await res.text();
      const title = titleOf(html);
      this.result.titles.push(title);
      // A refusal (wrong password or code) is the page to look at, not a form to fill again.
      if (html.includes('role="alert"')) return html;
      if (title === 'Sign in') {
        const f = formOf(html);
        if (!f) return html;
        url = new URL(f.action, url).href;
        form = { login: this.person.login, password: this.person.password };
      } else if (title === 'Two-factor authentication') {
        const f = formOf(html);
        if (!f) return html;
        this.result.totpAsked++;
        url = new URL(f.action, url).href;
        form = { code: this.totpCode() };
      } else if (title === 'Connect a device') {
        const f = formOf(html, /<form[^>]*id="op.deviceInputForm"[^>]*>/i);
        if (!f || !extra.userCode) return html;
        url = new URL(f.action, url).href;
        form = { ...f.fields, user_code: extra.userCode };
      } else if (title === 'Confirm the device') {
        const f = formOf(html, /<form[^>]*id="op.deviceConfirmForm"[^>]*>/i);
        if (!f) return html;
        url = new URL(f.action, url).href;
        form = { ...f.fields, confirm: 'yes' };
      } else {
        return html;
      }
    }
    throw new Error(`more than 30 hops from ${start}`);
  }
}
