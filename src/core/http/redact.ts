/**
 * The ONE place where secrets are scrubbed from text before it is logged or put into an error
 * message: bearer/basic credentials, `client_secret=...` style pairs, JWT-looking strings, and any
 * literal secret the caller knows about (the client secret, the current token).
 */

/**
 * A value after `token: ` in prose ("Cannot get a token: Cannot reach …") is a word, not a secret:
 * values are redacted, words are not. A value is quoted, follows `=`, or is not a plain word.
 */
function keyValue(_m: string, key: string, sep: string, value: string): string {
  const quoted = /["']/.test(sep);
  const assigned = sep.includes('=');
  // Only the bare word "token" appears in prose; a password or secret is always a value.
  const word = key.toLowerCase() === 'token' && value.length <= 15 && /^[A-Za-z][a-z]*[.,;:!?]?$/.test(value);
  return quoted || assigned || !word ? `${key}${sep}[REDACTED]` : `${key}${sep}${value}`;
}

const RULES: [RegExp, string | ((m: string, ...groups: string[]) => string)][] = [
  // a whole Authorization header value, whatever its scheme
  [/\b(authorization)(["']?\s*[=:]\s*["']?)[^"'\r\n,}]+/gi, '$1$2[REDACTED]'],
  // `Authorization: Bearer abc`, `Bearer abc`, `Basic Zm9v...`
  [/\b(Bearer|Basic)\s+[A-Za-z0-9\-._~+/]+=*/gi, '$1 [REDACTED]'],
  // key=value, key: value, "key": "value" for keys that name a secret
  [/\b(client_secret|access_token|refresh_token|id_token|password|secret|token|auth-token|code_verifier|device_code|user_code)(["']?\s*[=:]\s*["']?)([^&\s"',}]+)/gi, keyValue],
  // an authorization code in a callback URL or a form (`code=…`); "exit code: 2" stays
  [/([?&\s]|^)code=[^&\s"',}]+/g, '$1code=[REDACTED]'],
  // three base64url segments starting with a JSON header: a JWT
  [/\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, '[REDACTED-JWT]'],
];

/**
 * Returns `text` with credentials replaced by `[REDACTED]`. `secrets` are literal values to scrub as
 * well (values shorter than 4 characters are ignored: they would mangle ordinary words).
 */
export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const s of secrets) {
    if (s && s.length >= 4) out = out.split(s).join('[REDACTED]');
  }
  // Two calls only because TypeScript picks `replace`'s overload by the static type of `by`.
  for (const [re, by] of RULES) out = typeof by === 'string' ? out.replace(re, by) : out.replace(re, by);
  return out;
}
