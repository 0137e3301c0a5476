import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidInputError, NotFoundError, PermissionDeniedError, RateLimitedError, ServerError, TimeoutError, TooLargeError, UnauthorizedError, UnavailableError } from '../../src/core/errors';
import { errorFromResponse } from '../../src/core/http/errorMapping';
import { RateGate } from '../../src/core/http/rateGate';
import { redact } from '../../src/core/http/redact';
import { backoffMs, parseRetryAfter, rateLimitWaitSeconds } from '../../src/core/http/retryAfter';

void describe('Retry-After parsing', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  void it('reads integer seconds, clamps negatives, ignores junk', () => {
    assert.equal(parseRetryAfter('3', now), 3);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
    assert.equal(parseRetryAfter('-5', now), 0);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter('', now), undefined);
    assert.equal(parseRetryAfter(undefined, now), undefined);
  });
  void it('reads an HTTP date as seconds from now (never negative)', () => {
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now), 10);
    assert.equal(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now), 0);
  });
  void it('prefers Retry-After, falls back to RateLimit-Reset', () => {
    assert.equal(rateLimitWaitSeconds({ 'retry-after': '2', 'ratelimit-reset': '9' }, now), 2);
    assert.equal(rateLimitWaitSeconds({ 'ratelimit-reset': '9' }, now), 9);
    assert.equal(rateLimitWaitSeconds({}, now), undefined);
  });
  void it('backs off exponentially with jitter and a cap', () => {
    assert.equal(backoffMs(0, 1000, 60_000, () => 0), 500);
    assert.equal(backoffMs(0, 1000, 60_000, () => 1), 1000);
    assert.equal(backoffMs(3, 1000, 60_000, () => 1), 8000);
    assert.equal(backoffMs(20, 1000, 60_000, () => 1), 60_000);
  });
});

void describe('redact', () => {
  const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl';
  void it('scrubs bearer and basic credentials', () => {
    assert.equal(redact('Authorization: Bearer abc.def-ghi'), 'Authorization: [REDACTED]');
    assert.equal(redact('sent Bearer abc123'), 'sent Bearer [REDACTED]');
    assert.equal(redact('Basic Zm9vOmJhcg=='), 'Basic [REDACTED]');
  });
  void it('scrubs secret-named pairs in forms and JSON', () => {
    assert.equal(redact('grant_type=client_credentials&client_id=me&client_secret=s3cr3t!'), 'grant_type=client_credentials&client_id=me&client_secret=[REDACTED]');
    assert.equal(redact('{"access_token": "xyz", "expires_in": 300}'), '{"access_token": "[REDACTED]", "expires_in": 300}');
  });
  void it('scrubs JWT-looking strings and literal secrets', () => {
    assert.equal(redact(`token was ${jwt} here`), 'token was [REDACTED-JWT] here');
    assert.equal(redact('the value hunter2-long shows', ['hunter2-long']), 'the value [REDACTED] shows');
    assert.equal(redact('plain text about tokens'), 'plain text about tokens');
  });
  void it('scrubs what a sign-in carries: codes, verifiers, device codes, refresh tokens; not an exit code', () => {
    assert.equal(redact('GET /callback?code=AbC-123_x&state=s1'), 'GET /callback?code=[REDACTED]&state=s1');
    assert.equal(redact('code_verifier=v3r1f13r&grant_type=authorization_code'), 'code_verifier=[REDACTED]&grant_type=authorization_code');
    assert.equal(redact('device_code=dc-9&refresh_token=rt-1'), 'device_code=[REDACTED]&refresh_token=[REDACTED]');
    assert.equal(redact('the job failed with exit code: 2'), 'the job failed with exit code: 2');
  });
});

void describe('error mapping', () => {
  const route = 'GET /filesystem/{system}/ops/ls';
  const v2 = (status: number, message: string, extra: Record<string, unknown> = {}) =>
    errorFromResponse({ status, route, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ errorType: 'error', message, causedBy: null, data: null, user: 'alice', ...extra }) });

  void it('maps each status to its type, with message, status, route and user', () => {
    const cases: [number, new (...a: never[]) => Error][] = [
      [400, InvalidInputError], [401, UnauthorizedError], [403, PermissionDeniedError], [404, NotFoundError], [408, TimeoutError],
      [413, TooLargeError], [424, UnavailableError], [502, UnavailableError], [503, UnavailableError], [504, UnavailableError], [500, ServerError], [501, ServerError],
    ];
    for (const [status, cls] of cases) {
      const e = v2(status, `boom ${status}`);
      assert.ok(e instanceof cls, `${status} -> ${e.name}`);
      assert.equal(e.message, `boom ${status}`);
      assert.equal(e.status, status);
      assert.equal(e.route, route);
      assert.equal(e.user, 'alice');
    }
  });
  void it('carries v2 validation fields and causedBy', () => {
    const e = v2(400, '1 validation error', { errorType: 'validation', data: { fields: [{ location: 'query', name: 'lines', message: 'Input should be a valid integer' }] }, causedBy: ['sbatch: error'] });
    assert.ok(e instanceof InvalidInputError);
    assert.deepEqual(e.fields, [{ location: 'query', name: 'lines', message: 'Input should be a valid integer' }]);
    assert.deepEqual(e.causedBy, ['sbatch: error']);
  });
  void it('says clearly when the body is not FirecREST (HTML from a proxy)', () => {
    const e = errorFromResponse({ status: 502, route, headers: { 'content-type': 'text/html' }, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' });
    assert.ok(e instanceof UnavailableError);
    assert.match(e.message, /did not answer like FirecREST \(HTTP 502, text\/html\).*502 Bad Gateway/);
    const e500 = errorFromResponse({ status: 500, route, headers: {}, body: '<h1>Internal Server Error</h1>' });
    assert.ok(e500 instanceof ServerError);
    assert.match(e500.message, /did not answer like FirecREST/);
  });
  void it('reads v1 explanatory headers before the status', () => {
    const e = errorFromResponse({ status: 400, route: 'GET /utilities/ls', headers: { 'x-invalid-path': '/nope is an invalid path' }, body: '{"description": "Error on ls operation"}' });
    assert.ok(e instanceof NotFoundError);
    assert.equal(e.message, '/nope is an invalid path');
    const p = errorFromResponse({ status: 400, route: 'GET /utilities/ls', headers: { 'x-permission-denied': 'User does not have permissions' }, body: '{}' });
    assert.ok(p instanceof PermissionDeniedError);
    const t = errorFromResponse({ status: 400, route: 'GET /utilities/ls', headers: { 'x-timeout': 'Command has finished with timeout signal' }, body: '{}' });
    assert.ok(t instanceof TimeoutError);
    // The tool's own words (with the path) in `error` are kept next to the header's.
    const c = errorFromResponse({ status: 400, route: 'PUT /utilities/chmod', headers: { 'x-invalid-path': '/x/missing.txt is an invalid path' }, body: '{"error": "chmod: cannot access \'/x/missing.txt\': No such file or directory"}' });
    assert.ok(c instanceof NotFoundError);
    assert.equal(c.message, "/x/missing.txt is an invalid path: chmod: cannot access '/x/missing.txt': No such file or directory");
  });
  void it('maps the scheduler\'s "Invalid job id" 500 to NotFoundError and the unescaped-quote shell error to a clear refusal', () => {
    const j = errorFromResponse({ status: 500, route: 'DELETE /compute/{system}/jobs/{jobId}', headers: {}, body: JSON.stringify({ errorType: 'error', message: 'Unexpected Slurm command response. exit_status:0 std_err:scancel: error: Kill job error on job id 99: Invalid job id specified', causedBy: null, data: null, user: 'alice' }) });
    assert.ok(j instanceof NotFoundError, String(j));
    const q = errorFromResponse({ status: 500, route: 'POST /filesystem/{system}/ops/upload', headers: {}, body: JSON.stringify({ errorType: 'error', message: "Remote process failed with exit status:2 and error message:bash: -c: line 1: unexpected EOF while looking for matching `''", causedBy: null, data: null, user: 'alice' }) });
    assert.ok(q instanceof InvalidInputError, String(q));
    assert.match(q.message, /cannot handle ' in file names/);
  });
  void it("says upstream v2's remote-process failures in words, the server's text kept for the log", () => {
    const raw = "Remote process failed with exit status:2 and error message:ls: cannot access '/home/alice/gone': No such file or directory";
    const n = errorFromResponse({ status: 404, route: 'GET /filesystem/{system}/ops/ls', headers: {}, body: JSON.stringify({ message: raw }) });
    assert.ok(n instanceof NotFoundError);
    assert.equal(n.message, 'No such file or folder: /home/alice/gone');
    assert.deepEqual(n.causedBy, [raw]);
    const p = errorFromResponse({ status: 403, route: 'GET /filesystem/{system}/ops/ls', headers: {}, body: JSON.stringify({ message: "Remote process failed with exit status:2 and error message:ls: cannot open directory '/root': Permission denied" }) });
    assert.ok(p instanceof PermissionDeniedError);
    assert.equal(p.message, 'Permission denied: /root');
    // A time-out keeps its exit status (the client falls back to a transfer job on 124).
    const slow = errorFromResponse({ status: 500, route: 'DELETE /filesystem/{system}/ops/rm', headers: {}, body: JSON.stringify({ message: 'Remote process failed with exit status:124 and error message:' }) });
    assert.match(slow.message, /exit status:124/);
  });
  void it('reads the v1 body (description + error)', () => {
    const e = errorFromResponse({ status: 401, route: 'GET /utilities/ls', headers: {}, body: '{"description": "JWT token has expired"}' });
    assert.ok(e instanceof UnauthorizedError);
    assert.equal(e.message, 'JWT token has expired');
  });
  void it('redacts values, not words of prose', () => {
    assert.equal(redact('Cannot get a token: Cannot reach the server'), 'Cannot get a token: Cannot reach the server');
    assert.equal(redact('token: abc123def456'), 'token: [REDACTED]');
    assert.equal(redact('token=Word'), 'token=[REDACTED]');
    assert.equal(redact('password: Sunshine'), 'password: [REDACTED]');
    assert.equal(redact('"token": "plainword"'), '"token": "[REDACTED]"');
  });
  void it('gives 429 its retry-after', () => {
    const e = errorFromResponse({ status: 429, route, headers: { 'retry-after': '7' }, body: '' });
    assert.ok(e instanceof RateLimitedError);
    assert.equal(e.retryAfterSeconds, 7);
  });
  void it('never lets a token echoed by the server into the message', () => {
    const e = v2(401, 'Access token is invalid: Bearer abc.def.ghi');
    assert.doesNotMatch(e.message, /abc\.def/);
  });
});

void describe('rate gate', () => {
  void it('holds every caller until the latest block ends, and never shortens a hold', async () => {
    const g = new RateGate();
    const started = Date.now();
    g.block(150);
    g.block(50);
    await Promise.all([g.wait(), g.wait()]);
    assert.ok(Date.now() - started >= 140);
    const ac = new AbortController();
    g.block(10_000);
    const w = g.wait(ac.signal);
    ac.abort();
    await assert.rejects(w, (e: unknown) => (e as Error).name === 'CancelledError');
  });
});
