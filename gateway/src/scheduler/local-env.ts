/**
 * The SLURM_* variables the built-in scheduler exports into a job (and into `attach` commands), so
 * job scripts written for Slurm find what they expect.
 */
import type { LocalJob } from './local-state';

export function slurmEnv(job: LocalJob, cluster: string, node: string): Record<string, string> {
  const id = String(job.id);
  const env: Record<string, string> = {
    SLURM_JOB_ID: id, SLURM_JOBID: id, SLURM_JOB_NAME: job.name,
    SLURM_SUBMIT_DIR: job.submitDir, SLURM_SUBMIT_HOST: node, SLURM_JOB_PARTITION: job.partition,
    SLURM_CLUSTER_NAME: cluster, SLURM_JOB_ACCOUNT: job.account, SLURM_JOB_USER: job.user.name,
    SLURM_JOB_UID: String(job.user.uid), SLURM_JOB_GID: String(job.user.gid),
    SLURM_JOB_NODELIST: node, SLURM_NODELIST: node, SLURMD_NODENAME: node,
    SLURM_JOB_NUM_NODES: '1', SLURM_NNODES: '1', SLURM_CPUS_ON_NODE: '1', SLURM_JOB_CPUS_PER_NODE: '1',
    // The built-in scheduler keeps no accounting. A Slurm that runs on the same machine (CI runs
    // both) is not this cluster: its commands find an empty configuration in these jobs and say so
    // at once, instead of answering about other jobs that happen to have the same ids.
    SLURM_CONF: '/dev/null',
  };
  if (job.reservation) env.SLURM_JOB_RESERVATION = job.reservation;
  if (job.array) {
    Object.assign(env, {
      SLURM_ARRAY_JOB_ID: String(job.array.jobId), SLURM_ARRAY_TASK_ID: String(job.array.taskId),
      SLURM_ARRAY_TASK_COUNT: String(job.array.count), SLURM_ARRAY_TASK_MIN: String(job.array.min), SLURM_ARRAY_TASK_MAX: String(job.array.max),
    });
  }
  return env;
}
