/**
 * A record of what each job ran: at submit, the script text sent, its source file, the local git
 * commit with the uncommitted diff (through VS Code's built-in git extension, when present), the
 * environment sent (names and values from the settings only), and the options chosen. Kept in
 * global storage, one small JSON file a job, at most MAX_RECORDS (the oldest dropped first).
 */
import * as vscode from 'vscode';
import { createHash } from 'node:crypto';

export interface GitFacts {
  /** The repository's root folder (a local path). */
  root: string;
  commit?: string;
  branch?: string;
  /** Uncommitted changes (staged and not), as `git diff` prints them; cut at MAX_DIFF. */
  diff: string;
  diffTruncated?: boolean;
}

export interface ProvenanceRecord {
  profile: string;
  system: string;
  jobId: string;
  /** ISO time of the submission. */
  submittedAt: string;
  /** The script text as sent (for a script submitted by its remote path: its text at submit time). */
  script: string;
  /** The script's file (`file:` or `firecrest:` URI). */
  source: string;
  /** Set when the job ran the remote file by its path. */
  scriptPath?: string;
  git?: GitFacts;
  /** Variables exported to the job (from `firecrest.submit.environment`). */
  env?: Record<string, string>;
  options: { workingDirectory: string; name?: string; account?: string; partition?: string; reservation?: string; dependency?: string };
}

const MAX_RECORDS = 500;
/** The index of each script's last submission (not a record: eviction leaves it). */
const LAST_INDEX = 'last-by-script.json';
const MAX_SCRIPT = 1 << 20;
const MAX_DIFF = 256 * 1024;
/** How long a submission waits for the git extension to start (its facts are then left out). */
const GIT_READY_MS = 10_000;

/** The job a script was last submitted as. */
export interface LastSubmission {
  profile: string;
  system: string;
  jobId: string;
}

export class ProvenanceStore {
  private readonly dir: vscode.Uri;
  /** Writes in order, so that eviction never races a write. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Script (source URI) -> its last submission, kept in `last-by-script.json` beside the records. */
  private lastByScript?: Promise<Map<string, LastSubmission>>;

  constructor(globalStorage: vscode.Uri) {
    this.dir = vscode.Uri.joinPath(globalStorage, 'provenance');
  }

  private fileOf(profile: string, system: string, jobId: string): vscode.Uri {
    const key = createHash('sha256').update(`${profile}\0${system}\0${jobId}`).digest('hex').slice(0, 32);
    return vscode.Uri.joinPath(this.dir, `${key}.json`);
  }

  async get(profile: string, system: string, jobId: string): Promise<ProvenanceRecord | undefined> {
    try {
      const data = await vscode.workspace.fs.readFile(this.fileOf(profile, system, jobId));
      const r = JSON.parse(new TextDecoder().decode(data)) as ProvenanceRecord;
      return r.profile === profile && r.system === system && r.jobId === jobId ? r : undefined;
    } catch {
      return undefined;
    }
  }

  /** The job `source` (a script's URI) was last submitted as, from any window. */
  async lastOf(source: string): Promise<LastSubmission | undefined> {
    return (await this.lastIndex()).get(source);
  }

  private lastIndex(): Promise<Map<string, LastSubmission>> {
    this.lastByScript ??= (async () => {
      try {
        const raw = JSON.parse(new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(this.dir, LAST_INDEX)))) as unknown;
        const entries = Array.isArray(raw) ? raw.filter(isLastEntry) : [];
        return new Map(entries);
      } catch {
        return new Map<string, LastSubmission>();
      }
    })();
    return this.lastByScript;
  }

  record(r: ProvenanceRecord): Promise<void> {
    const next = this.queue.then(async () => {
      await vscode.workspace.fs.createDirectory(this.dir);
      const stored: ProvenanceRecord = r.script.length > MAX_SCRIPT ? { ...r, script: r.script.slice(0, MAX_SCRIPT) } : r;
      await vscode.workspace.fs.writeFile(this.fileOf(r.profile, r.system, r.jobId), new TextEncoder().encode(JSON.stringify(stored)));
      const last = await this.lastIndex();
      last.delete(r.source);
      last.set(r.source, { profile: r.profile, system: r.system, jobId: r.jobId });
      while (last.size > MAX_RECORDS) last.delete(last.keys().next().value as string);
      await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(this.dir, LAST_INDEX), new TextEncoder().encode(JSON.stringify([...last])));
      await this.evict();
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async evict(): Promise<void> {
    const files = (await vscode.workspace.fs.readDirectory(this.dir)).filter(([n, t]) => t === vscode.FileType.File && n.endsWith('.json') && n !== LAST_INDEX);
    if (files.length <= MAX_RECORDS) return;
    const dated = await Promise.all(files.map(async ([n]) => {
      const uri = vscode.Uri.joinPath(this.dir, n);
      return { uri, mtime: (await vscode.workspace.fs.stat(uri)).mtime };
    }));
    dated.sort((a, b) => a.mtime - b.mtime);
    for (const f of dated.slice(0, dated.length - MAX_RECORDS)) await vscode.workspace.fs.delete(f.uri).then(undefined, () => undefined);
  }
}

/** One `[source, last submission]` pair of the index file, as written (anything else is left out). */
function isLastEntry(e: unknown): e is [string, LastSubmission] {
  if (!Array.isArray(e) || e.length !== 2 || typeof e[0] !== 'string') return false;
  const v = e[1] as Partial<Record<keyof LastSubmission, unknown>> | null;
  return typeof v === 'object' && v !== null && typeof v.profile === 'string' && typeof v.system === 'string' && typeof v.jobId === 'string';
}

/** The parts of the built-in git extension's API (v1) used here. */
interface GitRepository {
  rootUri: vscode.Uri;
  state: { HEAD?: { commit?: string; name?: string } };
  diff(cached?: boolean): Promise<string>;
  status?(): Promise<void>;
}
interface GitApi {
  state?: 'uninitialized' | 'initialized';
  onDidChangeState?: vscode.Event<'uninitialized' | 'initialized'>;
  getRepository(uri: vscode.Uri): GitRepository | null;
  openRepository?(root: vscode.Uri): Promise<GitRepository | null>;
}

/** The git facts of a local file, or undefined outside a repository or without the git extension. */
export async function gitFacts(file: vscode.Uri): Promise<GitFacts | undefined> {
  if (file.scheme !== 'file') return undefined;
  try {
    const ext = vscode.extensions.getExtension<{ getAPI(v: 1): GitApi }>('vscode.git');
    if (!ext) return undefined;
    const api = (ext.isActive ? ext.exports : await ext.activate()).getAPI(1);
    // Until it has found git and its repositories, the extension answers nothing.
    if (api.state === 'uninitialized' && api.onDidChangeState) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => done(), GIT_READY_MS);
        const sub = api.onDidChangeState!((s) => s === 'initialized' && done());
        function done() {
          clearTimeout(timer);
          sub.dispose();
          resolve();
        }
      });
    }
    let repo = api.getRepository(file);
    // A repository in a subfolder the extension did not scan is not open yet: open it by its root
    // (the extension opens none outside the workspace folders unless git.openRepositoryInParentFolders says so).
    if (!repo && api.openRepository) {
      const root = await findGitRoot(file);
      if (root) repo = await api.openRepository(root);
    }
    if (!repo) return undefined;
    // A repository just opened reads its HEAD asynchronously.
    if (!repo.state.HEAD?.commit) await repo.status?.();
    const [unstaged, staged] = await Promise.all([repo.diff(false), repo.diff(true)]);
    let diff = [staged, unstaged].filter((d) => d.trim()).join('\n');
    const diffTruncated = diff.length > MAX_DIFF;
    if (diffTruncated) diff = diff.slice(0, MAX_DIFF);
    return { root: repo.rootUri.fsPath, commit: repo.state.HEAD?.commit, branch: repo.state.HEAD?.name, diff, ...(diffTruncated ? { diffTruncated } : {}) };
  } catch {
    return undefined;
  }
}

async function findGitRoot(file: vscode.Uri): Promise<vscode.Uri | undefined> {
  for (let dir = vscode.Uri.joinPath(file, '..'); ; ) {
    try {
      await vscode.workspace.fs.stat(vscode.Uri.joinPath(dir, '.git'));
      return dir;
    } catch {
      const up = vscode.Uri.joinPath(dir, '..');
      if (up.path === dir.path) return undefined;
      dir = up;
    }
  }
}
