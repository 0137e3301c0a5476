/**
 * The multipart body of the v2 small-file upload (§3.4: the part `file`, whose filename is the
 * remote name). Written here rather than by undici's FormData, which follows the browsers' form
 * encoding and writes `"` as `%22` and line breaks as `%0A`/`%0D`: servers store those bytes as
 * the name. A quoted-string with backslash escapes (RFC 2616 §2.2, which RFC 7578 refers to) is
 * read back exactly by python-multipart (the v2 server's parser, through email.utils.unquote) and
 * by busboy.
 */
import { randomBytes } from 'node:crypto';

/**
 * False for names a multipart filename cannot carry intact to every server: line breaks and other
 * control characters (not allowed in a header line; busboy drops such a part) and backslashes
 * (parsers strip what looks like a Windows path before one).
 */
export function fitsMultipartFilename(name: string): boolean {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what does not fit
  return !/[\x00-\x08\x0a-\x1f\x7f\\]/.test(name);
}

/** `multipart/form-data` with the one file part `file` named `name` (UTF-8, `"` escaped). */
export function multipartFile(name: string, data: Uint8Array): { data: Uint8Array; contentType: string } {
  const boundary = `----firecrest-vscode-${randomBytes(12).toString('hex')}`;
  const quoted = name.replace(/["\\]/g, (c) => `\\${c}`);
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted}"\r\nContent-Type: application/octet-stream\r\n\r\n`, 'utf8');
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
  return { data: Buffer.concat([head, data, tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}
