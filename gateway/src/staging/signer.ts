/**
 * Presigned URLs for the staging store, in the spirit of S3 signature v4 query authentication: the
 * URL carries a date, a lifetime and an HMAC-SHA256 over the method, path and every other query
 * parameter, so it needs no FirecREST token and cannot be altered or used after it expires. Presigned
 * POST forms sign a base64 JSON policy instead (bucket, key, size range, expiration), as S3 does.
 * The key lives in `<stateDir>/staging/signing-key` (mode 600), so URLs survive a gateway restart.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const ALGORITHM = 'AWS4-HMAC-SHA256';
const CREDENTIAL_SCOPE = 'local/s3/aws4_request';

const pad = (n: number): string => String(n).padStart(2, '0');

/** `YYYYMMDDTHHMMSSZ` (UTC), the `X-Amz-Date` format. */
export function amzDate(d: Date): string {
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}T${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}Z`;
}

export function parseAmzDate(s: string): number | undefined {
  const m = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/.exec(s);
  if (!m) return undefined;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}

/** Why a presigned request is refused (S3 error code and message), or undefined when it is valid. */
export type Refusal = { code: 'AccessDenied' | 'SignatureDoesNotMatch'; message: string } | undefined;

export interface PostPolicy {
  expiration: string;
  bucket: string;
  key: string;
  maxBytes: number;
}

export class Signer {
  /** `bucket/prefix/` of invalidated uploads: their POST forms are refused although still signed. */
  private readonly revoked = new Set<string>();

  private constructor(private readonly key: Buffer, readonly accessKey: string) {}

  /** Refuses from now on every POST form for a key under `prefix/` of `bucket` (an invalidated v1 upload). */
  revoke(bucket: string, prefix: string): void {
    this.revoked.add(`${bucket}/${prefix}/`);
  }

  static load(stagingRoot: string): Signer {
    mkdirSync(stagingRoot, { recursive: true, mode: 0o700 });
    const file = join(stagingRoot, 'signing-key');
    if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
    return new Signer(Buffer.from(readFileSync(file, 'utf8').trim(), 'hex'), 'firecrest-gateway');
  }

  private hmac(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('hex');
  }

  /** `METHOD\n/path\nsorted query without the signature`: what a URL signature covers. */
  private canonical(method: string, path: string, query: Record<string, string>): string {
    const q = Object.keys(query).filter((k) => k !== 'X-Amz-Signature').sort()
      .map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(query[k])}`).join('&');
    return `${method.toUpperCase()}\n${path}\n${q}`;
  }

  /** A presigned `METHOD origin/s3/bucket/key` URL valid `seconds` from `now`; `extra` is signed too. */
  presignUrl(method: string, origin: string, bucket: string, key: string, seconds: number, extra: Record<string, string> = {}, now = new Date()): string {
    const path = `/s3/${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
    const query: Record<string, string> = {
      ...extra,
      'X-Amz-Algorithm': ALGORITHM,
      'X-Amz-Credential': `${this.accessKey}/${amzDate(now).slice(0, 8)}/${CREDENTIAL_SCOPE}`,
      'X-Amz-Date': amzDate(now),
      'X-Amz-Expires': String(seconds),
      'X-Amz-SignedHeaders': 'host',
    };
    query['X-Amz-Signature'] = this.hmac(this.canonical(method, path, query));
    return `${origin}${path}?${new URLSearchParams(query).toString()}`;
  }

  /** Checks a presigned URL request: signature first (a changed date is tampering), then expiry. */
  verifyUrl(method: string, path: string, query: Record<string, string>, now = Date.now()): Refusal {
    const sig = query['X-Amz-Signature'];
    const date = parseAmzDate(query['X-Amz-Date'] ?? '');
    const expires = Number(query['X-Amz-Expires']);
    if (!sig || date === undefined || !Number.isInteger(expires) || query['X-Amz-Algorithm'] !== ALGORITHM) {
      return { code: 'AccessDenied', message: 'Query-string authentication requires the X-Amz-Algorithm, X-Amz-Date, X-Amz-Expires and X-Amz-Signature parameters.' };
    }
    if (!this.same(sig, this.hmac(this.canonical(method, path, query)))) {
      return { code: 'SignatureDoesNotMatch', message: 'The request signature we calculated does not match the signature you provided.' };
    }
    if (now > date + expires * 1000) return { code: 'AccessDenied', message: 'Request has expired' };
    return undefined;
  }

  /** The form fields of a presigned POST of `key` into `bucket`. */
  presignPost(bucket: string, key: string, seconds: number, maxBytes: number, now = new Date()): Record<string, string> {
    const date = amzDate(now);
    const credential = `${this.accessKey}/${date.slice(0, 8)}/${CREDENTIAL_SCOPE}`;
    const policy = Buffer.from(JSON.stringify({
      expiration: new Date(now.getTime() + seconds * 1000).toISOString(),
      conditions: [{ bucket }, { key }, ['content-length-range', 0, maxBytes], { 'x-amz-algorithm': ALGORITHM }, { 'x-amz-credential': credential }, { 'x-amz-date': date }],
    })).toString('base64');
    return { key, 'x-amz-algorithm': ALGORITHM, 'x-amz-credential': credential, 'x-amz-date': date, policy, 'x-amz-signature': this.hmac(policy) };
  }

  /** Checks the fields of a POST upload to `bucket`; resolves the policy's key and size limit. */
  verifyPost(bucket: string, fields: Record<string, string>, now = Date.now()): { refusal: Refusal; policy?: PostPolicy } {
    const policy = fields.policy;
    const sig = fields['x-amz-signature'];
    if (!policy || !sig) return { refusal: { code: 'AccessDenied', message: 'Bucket POST must contain the fields policy and x-amz-signature' } };
    if (!this.same(sig, this.hmac(policy))) return { refusal: { code: 'SignatureDoesNotMatch', message: 'The request signature we calculated does not match the signature you provided.' } };
    const doc = JSON.parse(Buffer.from(policy, 'base64').toString('utf8')) as { expiration: string; conditions: unknown[] };
    const cond = (name: string): unknown => (doc.conditions.find((c) => typeof c === 'object' && c !== null && !Array.isArray(c) && name in c) as Record<string, unknown> | undefined)?.[name];
    const range = doc.conditions.find((c) => Array.isArray(c) && c[0] === 'content-length-range') as [string, number, number] | undefined;
    const p: PostPolicy = { expiration: doc.expiration, bucket: String(cond('bucket')), key: String(cond('key')), maxBytes: range?.[2] ?? Number.POSITIVE_INFINITY };
    if (now > Date.parse(p.expiration)) return { refusal: { code: 'AccessDenied', message: 'Invalid according to Policy: Policy expired.' } };
    if (p.bucket !== bucket || fields.key !== p.key) return { refusal: { code: 'AccessDenied', message: 'Invalid according to Policy: Policy Condition failed' } };
    if ([...this.revoked].some((r) => `${bucket}/${p.key}`.startsWith(r))) return { refusal: { code: 'AccessDenied', message: 'Access Denied' } };
    return { refusal: undefined, policy: p };
  }

  private same(a: string, b: string): boolean {
    const x = Buffer.from(a);
    const y = Buffer.from(b);
    return x.length === y.length && timingSafeEqual(x, y);
  }
}
