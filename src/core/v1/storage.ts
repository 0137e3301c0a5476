/**
 * v1 internal transfers (§2.6.1): a Slurm job on the transfer partition, submitted through a
 * compute task whose `data` is the job-submission object and whose `system` runs the job.
 */
import { FirecrestError } from '../errors';
import type { TransferJob } from '../model';
import type { V1InternalTransferKind, V1InternalTransferOptions } from '../api';
import { Tasks, type TaskWaitOptions } from './tasks';
import type { V1Http } from './v1Http';

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v && !/-not-found$|^Not available$/.test(v) ? v : undefined;
}

/** xfer-internal routes of one connection. */
export class StorageRoutes {
  constructor(private readonly v1: V1Http, private readonly tasks: Tasks) {}

  /** Submits the job and waits for its task (not for the job); resolves with the job's identity. */
  async internal(machine: string, kind: V1InternalTransferKind, o: V1InternalTransferOptions, wait: TaskWaitOptions = {}): Promise<TransferJob> {
    const route = `/storage/xfer-internal/${kind}`;
    const fields = {
      sourcePath: kind === 'rm' ? undefined : o.sourcePath,
      targetPath: o.targetPath,
      jobName: o.jobName,
      time: o.time,
      stageOutJobId: o.stageOutJobId,
      account: o.account,
      dereference: o.dereference ? 'true' : undefined,
      type: o.type,
      extension: o.type,
    };
    const res = await this.v1.send('POST', route, { machine, fields, expect: [201], call: wait });
    const taskId = Tasks.created(res, `POST ${route}`);
    const task = await this.tasks.wait(taskId, wait);
    const d = task.data && typeof task.data === 'object' ? (task.data as Record<string, unknown>) : {};
    if (typeof d.jobid !== 'string' || !d.jobid) throw new FirecrestError(`The ${kind} transfer job was not submitted: ${JSON.stringify(task.data)}`, { route: `POST ${route}` });
    return { jobId: d.jobid, system: task.system ?? machine, outputLog: text(d.job_file_out), errorLog: text(d.job_file_err), taskId };
  }
}
