/**
 * TreeDataProvider of the Jobs view: connection (when several) > system > state group > job.
 * Children come straight from the model's pre-grouped arrays; nothing is fetched here.
 *
 * A new listing refreshes only what changed. VS Code's extension host forgets the rows under a
 * refreshed node until the workbench has asked for them again (for the whole tree when the root
 * is refreshed), and a context-menu command on a row in that moment runs without its row: Show
 * Job Details or Cancel Job then asked "which job?". So a listing that leaves a folder's rows in
 * place refreshes just the rows whose data changed (and the running ones, whose elapsed time
 * moves), through the very objects VS Code holds; a folder whose rows changed is refreshed
 * alone; the root only when the top level changes.
 */
import { isDeepStrictEqual } from 'node:util';
import * as vscode from 'vscode';
import { DESCRIPTION_FIELDS, groupOf, jobTooltip, type DescriptionField } from '../../common/jobFormat';
import { isUnreachable } from '../../common/reachability';
import type { JobDependencies } from '../../common/jobDependencies';
import { isArrayParent } from '../../core/jobArrays';
import { dependencyTargets } from '../../core/jobScript';
import type { Job } from '../../core/model';
import type { JobsModel, ProfileJobs, SystemJobs } from './jobsModel';
import { nodeId, toTreeItem, type JobsNode } from './jobsNodes';

export class JobsProvider implements vscode.TreeDataProvider<JobsNode>, vscode.Disposable {
  private readonly _onDidChangeTreeData = new vscode.EventEmitter<JobsNode | JobsNode[] | undefined>();
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
  private readonly subs: vscode.Disposable[];
  /** What a job row's description shows (`firecrest.jobs.description`), read once per change. */
  private fields = readFields();
  /** How a system's jobs are grouped (`firecrest.jobs.groupBy`). */
  private groupBy = readGroupBy();
  /** The children VS Code was last given, by their parent's id ('' for the top level). */
  private readonly shown = new Map<string, JobsNode[]>();
  /** Those nodes by id: the objects VS Code holds (it finds a node to refresh by identity). */
  private readonly shownById = new Map<string, JobsNode>();
  /** The day the rows were drawn on: times of other days carry their date (`Nov 24 14:03`). */
  private day = new Date().toDateString();
  /** The buckets of each system of the current listing (see bucketsById). */
  private readonly bucketMemo = new WeakMap<SystemJobs, { groupBy: JobsGroupBy; groups: SystemJobs['groups']; byId: Map<string, JobsNode> }>();
  /** Refreshes sent to VS Code: of the whole tree, and of single nodes (for the tests). */
  readonly refreshes = { root: 0, nodes: 0 };

  constructor(
    private readonly model: JobsModel,
    private readonly dependencies?: JobDependencies,
  ) {
    this.subs = [
      model.onDidChange(() => this.update()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration('firecrest.jobs.description') && !e.affectsConfiguration('firecrest.jobs.groupBy')) return;
        this.fields = readFields();
        this.groupBy = readGroupBy();
        this.refreshRoot();
      }),
    ];
  }

  getTreeItem(n: JobsNode): vscode.TreeItem {
    // While the server does not answer, a job's clock stops where its listing was taken.
    const frozen = n.kind === 'job' ? this.findSystem(n.profile, n.system) : undefined;
    const now = frozen && isUnreachable(frozen.error) && frozen.listedAt !== undefined ? frozen.listedAt : Date.now();
    const item = toTreeItem(n, now / 1000, this.fields);
    if (n.kind === 'job' && !n.job.isFinal && /^Dependency/.test(n.job.reason ?? '')) this.describeDependency(n, item);
    return item;
  }

  /** A pending job submitted with Run after…: what it waits for, and how that job is doing (from the listing, no request). */
  private describeDependency(n: Extract<JobsNode, { kind: 'job' }>, item: vscode.TreeItem): void {
    const dependency = this.dependencies?.get(n);
    if (!dependency) return;
    const targets = dependencyTargets(dependency).map(({ jobId }) => {
      const other = this.model.job({ profile: n.profile, system: n.system, jobId });
      return `${jobId} (${other ? other.state : vscode.l10n.t('not listed')})`;
    });
    const never = n.job.reason === 'DependencyNeverSatisfied';
    const waits = never ? vscode.l10n.t('never starts: waits for {0}', targets.join(', ')) : vscode.l10n.t('waits for {0}', targets.join(', '));
    item.description = typeof item.description === 'string' && item.description ? `${item.description} · ${waits}` : waits;
    if (never) item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
  }

  resolveTreeItem(item: vscode.TreeItem, n: JobsNode): vscode.TreeItem {
    if (n.kind === 'job') {
      const md = new vscode.MarkdownString(jobTooltip(n.job, n.system));
      md.supportHtml = false;
      item.tooltip = md;
    }
    return item;
  }

  /** VS Code's request: the children, remembered as what it holds now. */
  getChildren(n?: JobsNode): JobsNode[] {
    const children = this.childrenOf(n);
    const key = n ? nodeId(n) : '';
    for (const old of this.shown.get(key) ?? []) this.shownById.delete(nodeId(old));
    this.shown.set(key, children);
    for (const c of children) this.shownById.set(nodeId(c), c);
    return children;
  }

  /** A new listing or setting: refresh what changed (see the file's comment). */
  private update(): void {
    if (new Date().toDateString() !== this.day) return this.refreshRoot();
    const changed = new Set<JobsNode>();
    for (const [key, old] of [...this.shown]) {
      const parent = key ? this.shownById.get(key) : undefined;
      // No longer on screen (a folder above it was refreshed): VS Code asks again when it is.
      if (key && !parent) {
        this.shown.delete(key);
        continue;
      }
      const next = this.childrenOf(parent);
      if (next.length !== old.length || next.some((c, i) => nodeId(c) !== nodeId(old[i]))) {
        if (!parent) return this.refreshRoot();
        changed.add(parent);
        continue;
      }
      for (let i = 0; i < next.length; i++) {
        if (live(next[i]) || !isDeepStrictEqual(next[i], old[i])) {
          // In place: VS Code keeps the object, and reads the new data through it.
          for (const k of Object.keys(old[i])) delete (old[i] as unknown as Record<string, unknown>)[k];
          Object.assign(old[i], next[i]);
          changed.add(old[i]);
        }
      }
    }
    if (changed.size === 0) return;
    this.refreshes.nodes += changed.size;
    this._onDidChangeTreeData.fire([...changed]);
  }

  private refreshRoot(): void {
    this.day = new Date().toDateString();
    this.shown.clear();
    this.shownById.clear();
    this.refreshes.root++;
    this._onDidChangeTreeData.fire(undefined);
  }

  /** The children of `n` from the model now (a snapshot, a test, a benchmark; nothing remembered). */
  childrenOf(n?: JobsNode): JobsNode[] {
    if (!n) {
      const profiles = this.model.profiles;
      if (profiles.length === 1) return this.profileChildren(profiles[0]);
      return profiles.map((p) => ({ kind: 'connection', profile: p.profile, signedIn: p.signedIn }));
    }
    switch (n.kind) {
      case 'connection': {
        const p = this.model.profiles.find((x) => x.profile === n.profile);
        return p ? this.profileChildren(p) : [];
      }
      case 'system': {
        const s = this.findSystem(n.profile, n.system);
        return s ? this.systemChildren(s) : [];
      }
      case 'group': {
        const s = this.findSystem(n.profile, n.system);
        return this.jobNodes(n.profile, n.system, s?.groups?.[n.group] ?? []);
      }
      case 'bucket': {
        // From the model, not from the node: a node VS Code holds may be older than the listing.
        const s = this.findSystem(n.profile, n.system);
        const bucket = s?.groups ? this.bucketsById(s).get(nodeId(n)) : undefined;
        return bucket?.kind === 'bucket' ? this.jobNodes(n.profile, n.system, bucket.jobs) : [];
      }
      case 'job': {
        const tasks = n.tasks && (this.findSystem(n.profile, n.system)?.arrays?.get(n.jobId) ?? []);
        return tasks ? this.jobNodes(n.profile, n.system, tasks) : [];
      }
      default:
        return [];
    }
  }

  getParent(n: JobsNode): JobsNode | undefined {
    const multi = this.model.profiles.length > 1;
    switch (n.kind) {
      case 'job':
        // A task's parent is its array's node.
        if (n.job.array && !n.tasks) return this.jobNode(n.profile, n.system, n.job.array.jobId);
        return this.groupNode(n.profile, n.system, n.job);
      case 'group':
      case 'bucket':
        return { kind: 'system', profile: n.profile, system: n.system };
      case 'system':
      case 'error':
      case 'message':
      case 'unreachable':
        if (n.kind !== 'system' && n.kind !== 'unreachable' && n.system) return { kind: 'system', profile: n.profile, system: n.system };
        return multi ? { kind: 'connection', profile: n.profile, signedIn: this.model.profiles.find((p) => p.profile === n.profile)?.signedIn ?? false } : undefined;
      default:
        return undefined;
    }
  }

  /** The node of a job currently in the model (for `reveal`). */
  jobNode(profile: string, system: string, jobId: string): JobsNode | undefined {
    const job = this.model.job({ profile, system, jobId });
    return job ? this.jobNodes(profile, system, [job])[0] : undefined;
  }

  private jobNodes(profile: string, system: string, jobs: readonly Job[]): JobsNode[] {
    const canAttach = this.model.profiles.find((x) => x.profile === profile)?.canAttach ?? false;
    const arrays = this.findSystem(profile, system)?.arrays;
    const out = new Array<JobsNode>(jobs.length);
    for (let i = 0; i < jobs.length; i++) {
      const job = jobs[i];
      const tasks = arrays?.size && isArrayParent(job) ? arrays.get(job.id) : undefined;
      out[i] = tasks ? { kind: 'job', profile, system, jobId: job.id, job, canAttach, tasks } : { kind: 'job', profile, system, jobId: job.id, job, canAttach };
    }
    return out;
  }

  private groupNode(profile: string, system: string, job: Job): JobsNode | undefined {
    const s = this.findSystem(profile, system);
    if (!s?.groups) return undefined;
    const group = groupOf(job);
    if (group !== 'transfers' && this.groupBy !== 'state') return this.buckets(s).find((b) => b.kind === 'bucket' && b.key === bucketKey(job, this.groupBy as 'partition' | 'name'));
    return { kind: 'group', profile, system, group, count: s.groups[group].length };
  }

  /** The system's buckets by node id, built once per listing (new groups) and grouping. */
  private bucketsById(s: SystemJobs): Map<string, JobsNode> {
    let memo = this.bucketMemo.get(s);
    if (memo?.groupBy !== this.groupBy || memo.groups !== s.groups) {
      memo = { groupBy: this.groupBy, groups: s.groups, byId: new Map(this.buckets(s).map((b) => [nodeId(b), b])) };
      this.bucketMemo.set(s, memo);
    }
    return memo.byId;
  }

  /** The system's jobs by partition or name (running, then pending, then finished in each), then the Transfers group. */
  private buckets(s: SystemJobs): JobsNode[] {
    const by = this.groupBy as 'partition' | 'name';
    const groups = s.groups!;
    const byKey = new Map<string, Job[]>();
    for (const job of [...groups.running, ...groups.pending, ...groups.finished]) {
      const key = bucketKey(job, by);
      let list = byKey.get(key);
      if (!list) byKey.set(key, (list = []));
      list.push(job);
    }
    const out: JobsNode[] = [...byKey.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([key, jobs]) => ({ kind: 'bucket', profile: s.profile, system: s.system, by, key, jobs }));
    if (groups.transfers.length) out.push({ kind: 'group', profile: s.profile, system: s.system, group: 'transfers', count: groups.transfers.length });
    return out;
  }

  private profileChildren(p: ProfileJobs): JobsNode[] {
    // A server that does not answer is one row for the connection, not a network error per system.
    const down = p.unreachableSince !== undefined || isUnreachable(p.error) || p.systems.some((s) => isUnreachable(s.error));
    const listed = p.systems.map((s) => s.listedAt).filter((t): t is number => t !== undefined);
    const unreachable: JobsNode[] = down ? [{ kind: 'unreachable', profile: p.profile, site: p.site ?? p.profile, asOf: listed.length ? Math.min(...listed) : undefined }] : [];
    if (p.error) return down ? unreachable : [{ kind: 'error', profile: p.profile, error: p.error }];
    if (p.systems.length === 0) return [{ kind: 'message', profile: p.profile, text: vscode.l10n.t('No systems') }];
    return [...unreachable, ...p.systems.map((s): JobsNode => ({ kind: 'system', profile: p.profile, system: s.system }))];
  }

  private systemChildren(s: SystemJobs): JobsNode[] {
    const out: JobsNode[] = [];
    if (s.error && !isUnreachable(s.error)) out.push({ kind: 'error', profile: s.profile, system: s.system, error: s.error });
    if (s.groups) {
      if (this.groupBy === 'state') {
        for (const group of ['running', 'pending', 'finished', 'transfers'] as const) {
          const count = s.groups[group].length;
          if (count > 0) out.push({ kind: 'group', profile: s.profile, system: s.system, group, count });
        }
      } else {
        out.push(...this.buckets(s));
      }
      if (out.length === 0) {
        const filtered = this.model.filter.account || this.model.filter.name;
        out.push({ kind: 'message', profile: s.profile, system: s.system, text: filtered ? vscode.l10n.t('No jobs match the filter') : vscode.l10n.t('No jobs') });
      }
    }
    return out;
  }

  private findSystem(profile: string, system: string): SystemJobs | undefined {
    return this.model.profiles.find((p) => p.profile === profile)?.systems.find((s) => s.system === system);
  }

  dispose(): void {
    for (const d of this.subs) d.dispose();
    this._onDidChangeTreeData.dispose();
  }
}

/** A row whose text moves with the clock (a running job's elapsed time), or holds one that does. */
function live(n: JobsNode): boolean {
  return n.kind === 'job' && (!n.job.isFinal || !!n.tasks?.some((t) => !t.isFinal));
}

function readFields(): DescriptionField[] {
  const asked = vscode.workspace.getConfiguration('firecrest.jobs').get<unknown[]>('description') ?? ['status'];
  const known = asked.filter((f): f is DescriptionField => (DESCRIPTION_FIELDS as readonly unknown[]).includes(f));
  return known.length ? known : ['status'];
}

export type JobsGroupBy = 'state' | 'partition' | 'name';

function readGroupBy(): JobsGroupBy {
  const v = vscode.workspace.getConfiguration('firecrest.jobs').get<string>('groupBy');
  return v === 'partition' || v === 'name' ? v : 'state';
}

function bucketKey(job: Job, by: 'partition' | 'name'): string {
  return (by === 'partition' ? job.partition : job.name) ?? '';
}
