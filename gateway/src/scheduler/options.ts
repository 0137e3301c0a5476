/** Constructor options shared by both scheduler backends. */
export interface SchedulerOptions {
  /** Cluster name as it appears in job records (`cluster`) and `/status/systems`. */
  cluster: string;
  /** Writable directory for the backend's own state (local: jobs database and scripts). */
  stateDir: string;
  /** Local backend only: the partitions and reservations it pretends to have. */
  partitions?: { name: string; isDefault: boolean; maxTimeSeconds: number | null }[];
  reservations?: { name: string; startTime: number; endTime: number; users: string[]; flags: string[] }[];
  /** Local backend only: how long an ended submission's script stays readable (default 300 s, Slurm's MinJobAge). */
  scriptKeepSeconds?: number;
}
