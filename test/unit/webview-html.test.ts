/**
 * The webview HTML builder: its Content-Security-Policy lets no script run without the nonce,
 * every <script> carries that nonce, and nothing loads from outside the webview's own origin.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ACCOUNTING_PANEL } from '../../src/webviews/accounting/descriptor';
import { buildWebviewHtml, contentSecurityPolicy, makeNonce } from '../../src/webviews/html';
import type { PanelDescriptor } from '../../src/webviews/panelHost';
import { TRANSFERS_PANEL } from '../../src/webviews/transfers/descriptor';

const CSP_SOURCE = 'https://file+.vscode-resource.vscode-cdn.net';

function build(nonce = makeNonce(), extra: Partial<Parameters<typeof buildWebviewHtml>[0]> = {}): { html: string; nonce: string } {
  const html = buildWebviewHtml({
    cspSource: CSP_SOURCE,
    nonce,
    scriptUri: `${CSP_SOURCE}/ext/dist/webview-accounting.js`,
    styleUris: [`${CSP_SOURCE}/ext/media/webviews/accounting.css`],
    title: 'Job "Accounting" <test>',
    bodyData: { panel: 'firecrest.accounting' },
    ...extra,
  });
  return { html, nonce };
}

/** The policy as the browser reads it: directive name → its source list. */
function parseCsp(html: string): Map<string, string[]> {
  const metas = [...html.matchAll(/<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/gi)];
  assert.equal(metas.length, 1, 'exactly one CSP meta element');
  const value = metas[0][1].replace(/&#39;/g, "'").replace(/&#34;/g, '"').replace(/&#38;/g, '&');
  const out = new Map<string, string[]>();
  for (const d of value.split(';').map((s) => s.trim()).filter(Boolean)) {
    const [name, ...sources] = d.split(/\s+/);
    assert.ok(!out.has(name), `directive ${name} appears once`);
    out.set(name, sources);
  }
  return out;
}

void describe('webview HTML and CSP', () => {
  void it('has a policy that denies by default and allows scripts only with the nonce', () => {
    const { html, nonce } = build();
    const csp = parseCsp(html);
    assert.deepEqual(csp.get('default-src'), ["'none'"]);
    assert.deepEqual(csp.get('script-src'), [`'nonce-${nonce}'`]);
    for (const bad of ["'unsafe-inline'", "'unsafe-eval'", "'strict-dynamic'", '*', 'data:', 'blob:', 'http:', 'https:']) {
      assert.ok(!csp.get('script-src')!.includes(bad), `script-src must not allow ${bad}`);
    }
    assert.deepEqual(csp.get('style-src'), [CSP_SOURCE, `'nonce-${nonce}'`]);
    assert.deepEqual(csp.get('font-src'), [CSP_SOURCE]);
    assert.deepEqual(csp.get('img-src'), [CSP_SOURCE, 'data:']);
    assert.ok(!html.includes("'unsafe-inline'") && !html.includes('unsafe-eval'));
  });

  void it('puts the nonce on every <script> and <link>, and has no inline script or handler', () => {
    const { html, nonce } = build();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    assert.ok(scripts.length >= 1);
    for (const [, attrs, body] of scripts) {
      assert.match(attrs, new RegExp(`\\bnonce="${nonce.replace(/[+/=]/g, (c) => `\\${c}`)}"`), 'script has the nonce');
      assert.match(attrs, /\bsrc="[^"]+"/, 'script is loaded from the bundle, not inline');
      assert.equal(body.trim(), '', 'no inline script text');
    }
    for (const [, attrs] of html.matchAll(/<link\b([^>]*)>/gi)) assert.ok(attrs.includes(`nonce="${nonce}"`));
    assert.doesNotMatch(html, /\son[a-z]+\s*=/i, 'no inline event handlers');
    assert.doesNotMatch(html, /\sstyle\s*=/i, 'no inline style attributes');
    assert.doesNotMatch(html, /https?:\/\/(?!file\+\.vscode-resource)/, 'nothing from the network');
  });

  void it('makes a fresh unguessable nonce each time and escapes what it embeds', () => {
    const a = makeNonce();
    const b = makeNonce();
    assert.notEqual(a, b);
    assert.ok(Buffer.from(a, 'base64').length >= 16);
    const { html } = build(a, { title: '</title><script>alert(1)</script>' });
    assert.equal([...html.matchAll(/<script\b/gi)].length, 1, 'the title cannot add a script');
  });

  void it('policy string matches the documented form', () => {
    assert.equal(contentSecurityPolicy('vscode-src', 'N'), "default-src 'none'; script-src 'nonce-N'; style-src vscode-src 'nonce-N'; font-src vscode-src; img-src vscode-src data:");
  });

  /** Throws unless no script can run without the nonce: what every panel's HTML must pass. */
  function assertNoScriptWithoutNonce(html: string, nonce: string): void {
    const csp = parseCsp(html);
    // Without script-src, default-src governs scripts; it must then be 'none'.
    const scriptSrc = csp.get('script-src') ?? csp.get('default-src') ?? ['*'];
    assert.deepEqual(scriptSrc, [`'nonce-${nonce}'`], `scripts need the nonce, got script-src ${scriptSrc.join(' ')}`);
    for (const [, attrs, body] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
      assert.ok(attrs.includes(`nonce="${nonce}"`), 'every script carries the nonce');
      assert.equal(body.trim(), '', 'no inline script text');
    }
  }

  for (const panel of [ACCOUNTING_PANEL, TRANSFERS_PANEL] as PanelDescriptor[]) {
    void it(`${panel.viewType}: its HTML lets no script run without the nonce and loads only its bundle`, () => {
      const nonce = makeNonce();
      const html = buildWebviewHtml({
        cspSource: CSP_SOURCE,
        nonce,
        scriptUri: `${CSP_SOURCE}/ext/dist/${panel.bundle}`,
        styleUris: panel.styles.map((s) => `${CSP_SOURCE}/ext/${s}`),
        title: panel.title,
        bodyData: { panel: panel.viewType },
      });
      assertNoScriptWithoutNonce(html, nonce);
      const scripts = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/gi)].map((m) => m[1]);
      assert.deepEqual(scripts, [`${CSP_SOURCE}/ext/dist/${panel.bundle}`]);
    });
  }

  void it('the check fails for a policy that allows inline scripts, or scripts without the nonce', () => {
    const nonce = makeNonce();
    const good = build(nonce).html;
    assertNoScriptWithoutNonce(good, nonce);
    const csp = contentSecurityPolicy(CSP_SOURCE, nonce);
    for (const weaker of [
      csp.replace(`script-src 'nonce-${nonce}'`, `script-src 'nonce-${nonce}' 'unsafe-inline'`),
      csp.replace(`script-src 'nonce-${nonce}'`, `script-src ${CSP_SOURCE}`),
      csp.replace(`script-src 'nonce-${nonce}'; `, ''),
    ]) {
      const html = good.replace(/content="[^"]*"/, `content="${weaker.replace(/'/g, '&#39;')}"`);
      assert.throws(() => assertNoScriptWithoutNonce(html, nonce), /scripts need the nonce/, weaker);
    }
    const inline = good.replace('</body>', '<script>alert(1)</script></body>');
    assert.throws(() => assertNoScriptWithoutNonce(inline, nonce), /nonce|inline/);
  });
});
