/**
 * Folder mappings (`firecrest.sync.mappings` in a workspace folder's `.vscode/settings.json`):
 * which local folder goes to which remote directory, with its rules. A file belongs to the mapping
 * with the deepest local folder that contains it.
 */
import * as vscode from 'vscode';
import { FIRECREST_SCHEME, FirecrestUri } from '../core/uri';

export const MAPPINGS_SETTING = 'sync.mappings';

export interface SyncMapping {
  /** The local folder, relative to the workspace folder (`.` for the folder itself). */
  local: string;
  /** The remote directory, `firecrest://[profile@]system/path`. */
  remote: string;
  /** gitignore-style patterns left out, on top of `.gitignore`. */
  exclude?: string[];
  useGitignore?: boolean;
  deleteRemote?: boolean;
  /** What Fetch from Cluster brings back (gitignore-style); default `results/`, `*.out`, `*.err`. */
  include?: string[];
}

export interface ResolvedMapping {
  folder: vscode.WorkspaceFolder;
  mapping: SyncMapping;
  /** Absolute local path. */
  localRoot: string;
  remote: FirecrestUri;
  /** Stable id of the pair (manifest and state keys). */
  key: string;
}

export const DEFAULT_INCLUDE = ['results/', '*.out', '*.err'];

function isMapping(v: unknown): v is SyncMapping {
  const o = v as Partial<SyncMapping> | undefined;
  return !!o && typeof o.local === 'string' && typeof o.remote === 'string' && o.remote.startsWith(`${FIRECREST_SCHEME}://`);
}

export function readMappings(folder: vscode.WorkspaceFolder): SyncMapping[] {
  const raw = vscode.workspace.getConfiguration('firecrest', folder.uri).get<unknown[]>(MAPPINGS_SETTING) ?? [];
  return (Array.isArray(raw) ? raw : []).filter(isMapping);
}

export function resolve(folder: vscode.WorkspaceFolder, mapping: SyncMapping): ResolvedMapping | undefined {
  if (folder.uri.scheme !== 'file') return undefined;
  let remote: FirecrestUri;
  try {
    remote = FirecrestUri.parse(mapping.remote);
  } catch {
    return undefined;
  }
  const localRoot = vscode.Uri.joinPath(folder.uri, mapping.local === '.' ? '' : mapping.local).fsPath;
  return { folder, mapping, localRoot, remote, key: `${localRoot}\0${remote.toString()}` };
}

export function allMappings(): ResolvedMapping[] {
  return (vscode.workspace.workspaceFolders ?? []).flatMap((f) => readMappings(f).map((m) => resolve(f, m)).filter((m): m is ResolvedMapping => !!m));
}

/** The mapping a local file or folder belongs to (the deepest one). */
export function mappingFor(uri: vscode.Uri): ResolvedMapping | undefined {
  if (uri.scheme !== 'file') return undefined;
  const path = uri.fsPath;
  const inside = allMappings().filter((m) => path === m.localRoot || path.startsWith(m.localRoot.endsWith('/') ? m.localRoot : `${m.localRoot}/`));
  return inside.sort((a, b) => b.localRoot.length - a.localRoot.length)[0];
}

/** Adds (or replaces, for the same local folder) a mapping in the folder's settings. */
export async function saveMapping(folder: vscode.WorkspaceFolder, mapping: SyncMapping): Promise<void> {
  const others = readMappings(folder).filter((m) => m.local !== mapping.local);
  await vscode.workspace.getConfiguration('firecrest', folder.uri).update(MAPPINGS_SETTING, [...others, mapping], vscode.ConfigurationTarget.WorkspaceFolder);
}
