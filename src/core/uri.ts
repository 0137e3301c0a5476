/**
 * `firecrest://[<profile>@]<system>/<absolute path>`: the one way to name a remote file.
 * The profile part is present only when more than one connection is configured; nobody
 * concatenates these strings by hand.
 */
import { URI, Utils } from 'vscode-uri';

export const FIRECREST_SCHEME = 'firecrest';

export class FirecrestUri {
  private constructor(
    readonly system: string,
    /** Absolute POSIX path, no trailing slash except for `/`. */
    readonly path: string,
    readonly profile?: string,
  ) {}

  static from(parts: { system: string; path: string; profile?: string }): FirecrestUri {
    if (!parts.system) throw new Error('A firecrest URI needs a system');
    return new FirecrestUri(parts.system, normalizePath(parts.path), parts.profile || undefined);
  }

  /** Accepts anything with scheme/authority/path (a vscode.Uri or a vscode-uri URI) or a string. */
  static parse(uri: string | { scheme: string; authority: string; path: string }): FirecrestUri {
    const u = typeof uri === 'string' ? URI.parse(uri) : uri;
    if (u.scheme !== FIRECREST_SCHEME) throw new Error(`Not a ${FIRECREST_SCHEME}: URI: ${u.scheme}:`);
    const at = u.authority.lastIndexOf('@');
    const profile = at >= 0 ? decodeURIComponent(u.authority.slice(0, at)) : undefined;
    const system = at >= 0 ? u.authority.slice(at + 1) : u.authority;
    return FirecrestUri.from({ system, path: u.path || '/', profile });
  }

  get authority(): string {
    return this.profile ? `${encodeURIComponent(this.profile)}@${this.system}` : this.system;
  }

  get basename(): string {
    return this.path === '/' ? '' : this.path.slice(this.path.lastIndexOf('/') + 1);
  }

  get dirname(): FirecrestUri {
    const i = this.path.lastIndexOf('/');
    return this.with({ path: i <= 0 ? '/' : this.path.slice(0, i) });
  }

  with(change: { system?: string; path?: string; profile?: string | null }): FirecrestUri {
    // A new path alone (a child of a listed folder, 10,000 times for a folder of 10,000).
    if (change.system === undefined && change.profile === undefined && change.path !== undefined) return new FirecrestUri(this.system, normalizePath(change.path), this.profile);
    return FirecrestUri.from({
      system: change.system ?? this.system,
      path: change.path ?? this.path,
      profile: change.profile === null ? undefined : (change.profile ?? this.profile),
    });
  }

  joinPath(...segments: string[]): FirecrestUri {
    return this.with({ path: Utils.joinPath(URI.from({ scheme: 'x', path: this.path }), ...segments).path });
  }

  /** A vscode-uri URI; convert to vscode.Uri with `vscode.Uri.from(u.toJSON())`-style components. */
  toUri(): URI {
    return URI.from({ scheme: FIRECREST_SCHEME, authority: this.authority, path: this.path });
  }

  toString(): string {
    return this.toUri().toString();
  }

  equals(other: FirecrestUri): boolean {
    return this.system === other.system && this.path === other.path && this.profile === other.profile;
  }
}

/** An absolute path with no empty, `.` or `..` segment and no trailing slash: already normal. */
const NORMAL = /^(?:\/(?!\.\.?(?:\/|$))[^/]+)+$/;

function normalizePath(p: string): string {
  // The common case (every child of a listed folder) skips the split and join.
  if (NORMAL.test(p)) return p;
  if (!p.startsWith('/')) p = '/' + p;
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return '/' + out.join('/');
}
