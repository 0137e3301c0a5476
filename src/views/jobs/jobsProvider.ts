/**
 * TreeDataProvider of the Jobs view: connection (when several) > system > state group > job.
 * Children come straight from the model's pre-grouped arrays; nothing is fetched here.
 */
import * as vscode from 'vscode';
import { DESCRIPTION_FIELDS, groupOf, jobTooltip, type DescriptionField } from '../../common/jobFormat';
import type { Job } from '../../core/model';
import type { JobsModel, ProfileJobs, SystemJobs } from './jobsModel';
import { toTreeItem, type JobsNode } from './jobsNodes';

export class JobsProvider implements vscode.TreeDataProvider<JobsNode>, vscode.Disposable {
  private readonly _onDidChangeTreeData = new vscode.EventEmitter<JobsNode | undefined>();
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
  private readonly subs: vscode.Disposable[];
  /** What a job row's description shows (`firecrest.jobs.description`), read once per change. */
  private fields = readFields();

  constructor(private readonly model: JobsModel) {
    this.subs = [
      model.onDidChange(() => this._onDidChangeTreeData.fire(undefined)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration('firecrest.jobs.description')) return;
        this.fields = readFields();
        this._onDidChangeTreeData.fire(undefined);
      }),
    ];
  }

  getTreeItem(n: JobsNode): vscode.TreeItem {
    return toTreeItem(n, Date.now() / 1000, this.fields);
  }

  resolveTreeItem(item: vscode.TreeItem, n: JobsNode): vscode.TreeItem {
    if (n.kind === 'job') {
      const md = new vscode.MarkdownString(jobTooltip(n.job, n.system));
      md.supportHtml = false;
      item.tooltip = md;
    }
    return item;
  }

  getChildren(n?: JobsNode): JobsNode[] {
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
        const jobs = s?.groups?.[n.group] ?? [];
        const canAttach = this.model.profiles.find((x) => x.profile === n.profile)?.canAttach ?? false;
        const out = new Array<JobsNode>(jobs.length);
        for (let i = 0; i < jobs.length; i++) out[i] = { kind: 'job', profile: n.profile, system: n.system, jobId: jobs[i].id, job: jobs[i], canAttach };
        return out;
      }
      default:
        return [];
    }
  }

  getParent(n: JobsNode): JobsNode | undefined {
    const multi = this.model.profiles.length > 1;
    switch (n.kind) {
      case 'job':
        return this.groupNode(n.profile, n.system, n.job);
      case 'group':
        return { kind: 'system', profile: n.profile, system: n.system };
      case 'system':
      case 'error':
      case 'message':
        if (n.kind !== 'system' && n.system) return { kind: 'system', profile: n.profile, system: n.system };
        return multi ? { kind: 'connection', profile: n.profile, signedIn: this.model.profiles.find((p) => p.profile === n.profile)?.signedIn ?? false } : undefined;
      default:
        return undefined;
    }
  }

  /** The node of a job currently in the model (for `reveal`). */
  jobNode(profile: string, system: string, jobId: string): JobsNode | undefined {
    const job = this.model.job({ profile, system, jobId });
    const canAttach = this.model.profiles.find((x) => x.profile === profile)?.canAttach ?? false;
    return job ? { kind: 'job', profile, system, jobId, job, canAttach } : undefined;
  }

  private groupNode(profile: string, system: string, job: Job): JobsNode | undefined {
    const s = this.findSystem(profile, system);
    if (!s?.groups) return undefined;
    const group = groupOf(job);
    return { kind: 'group', profile, system, group, count: s.groups[group].length };
  }

  private profileChildren(p: ProfileJobs): JobsNode[] {
    if (p.error) return [{ kind: 'error', profile: p.profile, error: p.error }];
    if (p.systems.length === 0) return [{ kind: 'message', profile: p.profile, text: 'No systems' }];
    return p.systems.map((s) => ({ kind: 'system', profile: p.profile, system: s.system }));
  }

  private systemChildren(s: SystemJobs): JobsNode[] {
    const out: JobsNode[] = [];
    if (s.error) out.push({ kind: 'error', profile: s.profile, system: s.system, error: s.error });
    if (s.groups) {
      for (const group of ['running', 'pending', 'finished', 'transfers'] as const) {
        const count = s.groups[group].length;
        if (count > 0) out.push({ kind: 'group', profile: s.profile, system: s.system, group, count });
      }
      if (out.length === 0) {
        const filtered = this.model.filter.account || this.model.filter.name;
        out.push({ kind: 'message', profile: s.profile, system: s.system, text: filtered ? 'No jobs match the filter' : 'No jobs' });
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

function readFields(): DescriptionField[] {
  const asked = vscode.workspace.getConfiguration('firecrest.jobs').get<unknown[]>('description') ?? ['status'];
  const known = asked.filter((f): f is DescriptionField => (DESCRIPTION_FIELDS as readonly unknown[]).includes(f));
  return known.length ? known : ['status'];
}
