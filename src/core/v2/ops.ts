/** v2 filesystem "ops" routes (§3.4): synchronous commands over SSH. */
import type { CallOptions, HeadTailOptions, ListOptions } from '../api';
import type { ApiHttp, QueryValue } from '../http/apiHttp';
import type { Checksum, CompressionType, FileContent, FileEntry, FileStat } from '../model';
import { screenEntries } from '../entryNames';
import { listingSettled } from '../vanishedEntries';
import { parseLsEntries } from './lsEntries';
import { hasWhitespace, plainAlias } from './plainAlias';
import { multipartFile } from './multipart';
import { parseBody } from './parse';
import { toFileEntry } from './translate';
import { ChecksumW, ContentW, FileOutW, StatW, ViewW } from './wire';
import { messageOf } from '../errors';

const OPS = '/filesystem/{system}/ops';

/** The ops router of one connection. */
export class OpsRoutes {
  constructor(private readonly http: ApiHttp) {}

  private async get(system: string, op: string, query: Record<string, QueryValue>, call?: CallOptions) {
    const route = `${OPS}/${op}`;
    const res = await this.http.request({ method: 'GET', route, params: { system }, query, expect: [200], call });
    return { res, label: `GET ${route}` };
  }

  /** Query parameters always sent, defaults included, like the official client. */
  async list(system: string, path: string, o: ListOptions = {}): Promise<FileEntry[]> {
    const q = { path, showHidden: !!o.showHidden, recursive: !!o.recursive, numericUid: !!o.numericUid, dereference: !!o.dereference };
    return listingSettled(async () => {
      const { res, label } = await this.get(system, 'ls', q, o);
      return screenEntries(parseLsEntries(res, label), path, `${label} ${path}`, !!o.recursive, (m) => this.http.logger.error(m));
    }, path, o.signal);
  }

  async stat(system: string, path: string, o: CallOptions & { dereference?: boolean } = {}): Promise<FileStat> {
    const { res, label } = await this.get(system, 'stat', { path, dereference: !!o.dereference }, o);
    return parseBody(StatW, res, label).output;
  }

  async head(system: string, path: string, o: HeadTailOptions = {}): Promise<FileContent> {
    const { res, label } = await this.get(system, 'head', { path, bytes: o.bytes, lines: o.lines, skipTrailing: !!o.skip }, o);
    return this.content(parseBody(ContentW, res, label).output);
  }

  async tail(system: string, path: string, o: HeadTailOptions = {}): Promise<FileContent> {
    const { res, label } = await this.get(system, 'tail', { path, bytes: o.bytes, lines: o.lines, skipHeading: !!o.skip }, o);
    return this.content(parseBody(ContentW, res, label).output);
  }

  private content(c: { content: string; contentType: string; startPosition: number; endPosition: number }): FileContent {
    return { ...c, contentType: c.contentType === 'bytes' ? 'bytes' : 'lines' };
  }

  async view(system: string, path: string, o: CallOptions & { offset?: number; size?: number } = {}): Promise<string> {
    const { res, label } = await this.get(system, 'view', { path, size: o.size, offset: o.offset }, o);
    return parseBody(ViewW, res, label).output;
  }

  /**
   * The server's checksum. A path with whitespace is checksummed through a plain-named symlink
   * (upstream splits the command's output on whitespace: `plainAlias.ts`); the backslash that
   * sha256sum puts before the sum of a name it had to escape is dropped.
   */
  async checksum(system: string, path: string, o: CallOptions = {}): Promise<Checksum> {
    if (!hasWhitespace(path)) return this.checksumOf(system, path, o);
    const alias = await plainAlias(this, system, path, 'The checksum', { signal: o.signal, onReleaseError: (e) => this.http.logger.warn(`Removing the temporary symlink for the checksum of ${path} failed: ${messageOf(e)}`) });
    try {
      return await this.checksumOf(system, alias.path, o);
    } finally {
      await alias.release();
    }
  }

  private async checksumOf(system: string, path: string, o: CallOptions): Promise<Checksum> {
    const { res, label } = await this.get(system, 'checksum', { path }, o);
    const out = parseBody(ChecksumW, res, label).output;
    return { ...out, checksum: out.checksum.replace(/^\\/, '') };
  }

  async fileType(system: string, path: string, o?: CallOptions): Promise<string> {
    const { res, label } = await this.get(system, 'file', { path }, o);
    return parseBody(ViewW, res, label).output;
  }

  private async entry(method: 'PUT' | 'POST', op: string, system: string, json: unknown, expect: number, call?: CallOptions): Promise<FileEntry | undefined> {
    const route = `${OPS}/${op}`;
    const res = await this.http.request({ method, route, params: { system }, json, expect: [expect], call });
    const out = parseBody(FileOutW, res, `${method} ${route}`).output;
    return out ? toFileEntry(out) : undefined;
  }

  chmod(system: string, path: string, mode: string, o?: CallOptions): Promise<FileEntry | undefined> {
    return this.entry('PUT', 'chmod', system, { path, mode }, 200, o);
  }

  chown(system: string, path: string, owner: string, group: string, o?: CallOptions): Promise<FileEntry | undefined> {
    return this.entry('PUT', 'chown', system, { path, owner, group }, 200, o);
  }

  async mkdir(system: string, path: string, o: CallOptions & { parents?: boolean } = {}): Promise<void> {
    await this.entry('POST', 'mkdir', system, { path, parent: !!o.parents }, 201, o);
  }

  async symlink(system: string, target: string, linkPath: string, o?: CallOptions): Promise<void> {
    await this.entry('POST', 'symlink', system, { path: target, linkPath }, 201, o);
  }

  async rm(system: string, path: string, o?: CallOptions): Promise<void> {
    await this.http.request({ method: 'DELETE', route: `${OPS}/rm`, params: { system }, query: { path }, expect: [204], call: o });
  }

  async download(system: string, path: string, o?: CallOptions): Promise<Uint8Array> {
    const { res } = await this.get(system, 'download', { path }, o);
    return res.body;
  }

  /** `fileName` should fit a multipart filename (`fitsMultipartFilename`); V2Api handles the others. */
  async upload(system: string, directory: string, fileName: string, data: Uint8Array, o?: CallOptions): Promise<void> {
    const raw = () => multipartFile(fileName, data);
    await this.http.request({ method: 'POST', route: `${OPS}/upload`, params: { system }, query: { path: directory }, raw, expect: [204], resendable: true, call: o });
  }

  async compress(system: string, source: string, target: string, o: CallOptions & { dereference?: boolean; compression?: CompressionType; matchPattern?: string } = {}): Promise<void> {
    const json = { path: source, targetPath: target, dereference: !!o.dereference, compression: o.compression ?? 'gzip', matchPattern: o.matchPattern };
    await this.http.request({ method: 'POST', route: `${OPS}/compress`, params: { system }, json, expect: [204], call: o });
  }

  async extract(system: string, source: string, targetDir: string, o: CallOptions & { compression?: CompressionType } = {}): Promise<void> {
    const json = { path: source, targetPath: targetDir, compression: o.compression ?? 'gzip' };
    await this.http.request({ method: 'POST', route: `${OPS}/extract`, params: { system }, json, expect: [204], call: o });
  }
}
