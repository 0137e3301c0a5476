/**
 * v1 utilities service (§2.4): synchronous commands over SSH with camelCase form/query names, the
 * `{"description","output"}` envelope and the per-route success statuses of §4.2.
 */
import type { CallOptions, HeadTailOptions, ListOptions } from '../api';
import { InvalidInputError } from '../errors';
import type { Checksum, FileContent, FileEntry, FileStat, UserInfo } from '../model';
import { screenEntries } from '../entryNames';
import { toFileEntry } from '../v2/translate';
import { listingSettled } from '../vanishedEntries';
import { flag, type Fields, type V1Http } from './v1Http';
import { LsW, StatW, TextOutW, WhoamiW } from './wire';


function content(text: string, o: HeadTailOptions): FileContent {
  const bytes = o.bytes !== undefined;
  const n = bytes ? Buffer.byteLength(text) : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  return { content: text, contentType: bytes ? 'bytes' : 'lines', startPosition: 0, endPosition: n };
}

/** The utilities routes of one connection. */
export class UtilitiesRoutes {
  constructor(private readonly v1: V1Http) {}

  private async text(op: string, machine: string, query: Record<string, string | number | undefined>, call?: CallOptions): Promise<string> {
    return (await this.v1.json(TextOutW, 'GET', `/utilities/${op}`, { machine, query, expect: [200], call })).output;
  }

  private async form(method: 'POST' | 'PUT' | 'DELETE', op: string, machine: string, fields: Fields, expect: number, call?: CallOptions): Promise<void> {
    await this.v1.send(method, `/utilities/${op}`, { machine, fields, expect: [expect], call });
  }

  async list(machine: string, path: string, o: ListOptions = {}): Promise<FileEntry[]> {
    const query = { targetPath: path, showhidden: flag(o.showHidden), numericUid: flag(o.numericUid), recursive: flag(o.recursive), followLinks: flag(o.dereference) };
    const body = await listingSettled(() => this.v1.json(LsW, 'GET', '/utilities/ls', { machine, query, expect: [200], call: o }), path, o.signal);
    // Same entry as v2 under other field names: one translation for both.
    const entries = body.output.map((f) =>
      toFileEntry({ name: f.name, type: f.type, linkTarget: f.link_target || null, user: f.user, group: f.group, permissions: f.permissions, lastModified: f.last_modified, size: f.size }),
    );
    return screenEntries(entries, path, `GET /utilities/ls ${path}`, !!o.recursive, (m) => this.v1.http.logger.error(m));
  }

  async stat(machine: string, path: string, o: CallOptions & { dereference?: boolean } = {}): Promise<FileStat> {
    return (await this.v1.json(StatW, 'GET', '/utilities/stat', { machine, query: { targetPath: path, dereference: flag(o.dereference) }, expect: [200], call: o })).output;
  }

  async head(machine: string, path: string, o: HeadTailOptions = {}): Promise<FileContent> {
    const q = { targetPath: path, bytes: o.bytes, lines: o.lines, skip_ending: flag(o.skip) };
    return content(await this.text('head', machine, q, o), o);
  }

  async tail(machine: string, path: string, o: HeadTailOptions = {}): Promise<FileContent> {
    const q = { targetPath: path, bytes: o.bytes, lines: o.lines, skip_beginning: flag(o.skip) };
    return content(await this.text('tail', machine, q, o), o);
  }

  async checksum(machine: string, path: string, o?: CallOptions): Promise<Checksum> {
    return { algorithm: 'SHA-256', checksum: (await this.text('checksum', machine, { targetPath: path }, o)).trim() };
  }

  fileType(machine: string, path: string, o?: CallOptions): Promise<string> {
    return this.text('file', machine, { targetPath: path }, o);
  }

  chmod(machine: string, path: string, mode: string, o?: CallOptions): Promise<void> {
    return this.form('PUT', 'chmod', machine, { targetPath: path, mode }, 200, o);
  }

  chown(machine: string, path: string, owner: string, group: string, o?: CallOptions): Promise<void> {
    return this.form('PUT', 'chown', machine, { targetPath: path, owner: owner || undefined, group: group || undefined }, 200, o);
  }

  /** `p` means parents by its mere presence (§2.1), so it is only sent when wanted. */
  mkdir(machine: string, path: string, o: CallOptions & { parents?: boolean } = {}): Promise<void> {
    return this.form('POST', 'mkdir', machine, { targetPath: path, p: o.parents ? 'true' : undefined }, 201, o);
  }

  symlink(machine: string, target: string, linkPath: string, o?: CallOptions): Promise<void> {
    return this.form('POST', 'symlink', machine, { targetPath: target, linkPath }, 201, o);
  }

  rm(machine: string, path: string, o?: CallOptions): Promise<void> {
    return this.form('DELETE', 'rm', machine, { targetPath: path }, 204, o);
  }

  rename(machine: string, source: string, target: string, o?: CallOptions): Promise<void> {
    return this.form('PUT', 'rename', machine, { sourcePath: source, targetPath: target }, 200, o);
  }

  copy(machine: string, source: string, target: string, o?: CallOptions): Promise<void> {
    return this.form('POST', 'copy', machine, { sourcePath: source, targetPath: target }, 201, o);
  }

  compress(machine: string, source: string, target: string, o: CallOptions & { dereference?: boolean } = {}): Promise<void> {
    return this.form('POST', 'compress', machine, { sourcePath: source, targetPath: target, dereference: flag(o.dereference) }, 201, o);
  }

  /** Sends `type` (what the server reads, Q1) and `extension` (what the OpenAPI names) alike. */
  extract(machine: string, source: string, targetDir: string, o: CallOptions & { type?: string } = {}): Promise<void> {
    return this.form('POST', 'extract', machine, { sourcePath: source, targetPath: targetDir, type: o.type, extension: o.type }, 201, o);
  }

  async download(machine: string, path: string, o?: CallOptions): Promise<Uint8Array> {
    return (await this.v1.send('GET', '/utilities/download', { machine, query: { sourcePath: path }, expect: [200], call: o })).body;
  }

  /** `targetPath` is the directory; the file part's name names the file. */
  upload(machine: string, directory: string, fileName: string, data: Uint8Array, o?: CallOptions): Promise<void> {
    // undici's FormData writes `"` and line breaks as %22/%0A/%0D, which pass the server's check and
    // name the file wrongly; v1 servers refuse these characters in a file name anyway (§2.1).
    if (/["\r\n]/.test(fileName)) {
      return Promise.reject(new InvalidInputError(`File name ${JSON.stringify(fileName)} has an invalid char: API v1 servers refuse " and control characters in file names`, { route: 'POST /utilities/upload' }));
    }
    return this.v1.send('POST', '/utilities/upload', { machine, fields: { targetPath: directory }, file: { name: fileName, data }, expect: [201], call: o }).then(() => undefined);
  }

  async whoami(machine: string, o?: CallOptions): Promise<UserInfo> {
    const w = (await this.v1.json(WhoamiW, 'GET', '/utilities/whoami', { machine, query: { groups: 'true' }, expect: [200], call: o })).output;
    return { user: { id: w.user.id, name: w.user.name }, group: { id: w.group.id, name: w.group.name }, groups: w.groups.map((g) => ({ id: g.id, name: g.name })) };
  }
}
