/** The local scheduler backend; being written: placeholder. */
import type { SchedulerOptions } from './options';
import { SchedulerError, type Scheduler } from './types';

const todo = (): never => { throw new SchedulerError('Local scheduler not implemented yet', 501); };

export class LocalScheduler implements Scheduler {
  readonly kind = 'local' as const;
  readonly cluster: string;
  constructor(readonly options: SchedulerOptions) { this.cluster = options.cluster; }
  version = async (): Promise<string> => todo();
  start = async (): Promise<void> => todo();
  stop = async (): Promise<void> => todo();
  submit = async (): Promise<string> => todo();
  list = async (): Promise<never[]> => todo();
  get = async (): Promise<undefined> => todo();
  metadata = async (): Promise<undefined> => todo();
  cancel = async (): Promise<void> => todo();
  attach = async (): Promise<never> => todo();
  accounting = async (): Promise<never[]> => todo();
  partitions = async (): Promise<never[]> => todo();
  nodes = async (): Promise<never[]> => todo();
  reservations = async (): Promise<never[]> => todo();
  accounts = async (): Promise<never[]> => todo();
  createReservation = async (): Promise<void> => todo();
  updateReservation = async (): Promise<void> => todo();
  deleteReservation = async (): Promise<void> => todo();
}
