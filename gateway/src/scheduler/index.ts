/** Chooses the scheduler backend: Slurm when asked for (or, with `auto`, when `sinfo` answers), else the built-in one. */
import { LocalScheduler } from './local';
import type { SchedulerOptions } from './options';
import { SlurmScheduler, slurmAvailable } from './slurm';
import type { Scheduler } from './types';

export type SchedulerKind = 'auto' | 'slurm' | 'local';

export async function createScheduler(kind: SchedulerKind, options: SchedulerOptions): Promise<Scheduler> {
  const slurm = kind === 'slurm' || (kind === 'auto' && (await slurmAvailable()));
  return slurm ? new SlurmScheduler(options) : new LocalScheduler(options);
}
