/**
 * Folder mappings: which local folder goes to which remote directory, with its rules. Kept in the
 * workspace's own storage (the default: nothing is written into the user's repository) or, to share
 * them with the repository, in `firecrest.sync.mappings` of a workspace folder's
 * `.vscode/settings.json`. A file belongs to the mapping with the deepest local folder that
 * contains it.
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

/** Where a mapping is kept. */
export const MAPPING_PLACES = ['workspace', 'settings'] as const;
export type MappingPlace = (typeof MAPPING_PLACES)[number];

const STORED_KEY = 'firecrest.sync.mappings';

/** The mappings of this workspace, from its storage and from its folders' settings. */
export class MappingStore {
  constructor(private readonly state: vscode.Memento) {}

  /** Mappings kept in the workspace's storage, by workspace folder URI. */
  private stored(): Record<string, SyncMapping[]> {
    const raw = this.state.get<Record<string, unknown[]>>(STORED_KEY) ?? {};
    return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, (Array.isArray(v) ? v : []).filter(isMapping)]));
  }

  /** A folder's mappings: its settings' first, then the stored ones for other local folders. */
  of(folder: vscode.WorkspaceFolder): SyncMapping[] {
    const fromSettings = readMappings(folder);
    const kept = (this.stored()[folder.uri.toString()] ?? []).filter((m) => !fromSettings.some((x) => x.local === m.local));
    return [...fromSettings, ...kept];
  }

  all(): ResolvedMapping[] {
    return (vscode.workspace.workspaceFolders ?? []).flatMap((f) => this.of(f).map((m) => resolve(f, m)).filter((m): m is ResolvedMapping => !!m));
  }

  /** The mapping a local file or folder belongs to (the deepest one). */
  for(uri: vscode.Uri): ResolvedMapping | undefined {
    if (uri.scheme !== 'file') return undefined;
    const path = uri.fsPath;
    const inside = this.all().filter((m) => path === m.localRoot || path.startsWith(m.localRoot.endsWith('/') ? m.localRoot : `${m.localRoot}/`));
    return inside.sort((a, b) => b.localRoot.length - a.localRoot.length)[0];
  }

  /** Adds (or replaces, for the same local folder) a mapping where it is to be kept; it leaves the other place. */
  async save(folder: vscode.WorkspaceFolder, mapping: SyncMapping, where: MappingPlace): Promise<void> {
    const key = folder.uri.toString();
    const stored = this.stored();
    const others = (stored[key] ?? []).filter((m) => m.local !== mapping.local);
    await this.state.update(STORED_KEY, { ...stored, [key]: where === 'workspace' ? [...others, mapping] : others });
    const inSettings = readMappings(folder);
    if (where === 'settings' || inSettings.some((m) => m.local === mapping.local)) {
      const rest = inSettings.filter((m) => m.local !== mapping.local);
      await vscode.workspace.getConfiguration('firecrest', folder.uri).update(MAPPINGS_SETTING, where === 'settings' ? [...rest, mapping] : rest.length ? rest : undefined, vscode.ConfigurationTarget.WorkspaceFolder);
    }
  }
}

/** Asks where a new mapping is kept, saying what each choice writes. */
export async function askWhereKept(folder: vscode.WorkspaceFolder): Promise<MappingPlace | undefined> {
  const pick = await vscode.window.showQuickPick<vscode.QuickPickItem & { where: MappingPlace }>([
    { label: vscode.l10n.t('In this workspace only'), detail: vscode.l10n.t("Kept in VS Code's storage for this workspace: nothing is written into {0}.", folder.name), where: 'workspace' },
    { label: vscode.l10n.t('In .vscode/settings.json'), detail: vscode.l10n.t('Written into {0}/.vscode/settings.json, to share it with the repository.', folder.name), where: 'settings' },
  ], { title: vscode.l10n.t('Where should the mapping be kept?'), ignoreFocusOut: true });
  return pick?.where;
}
