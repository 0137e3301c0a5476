/**
 * The dependencies of the jobs submitted from this window (`--dependency`, chosen with Run after…):
 * job listings do not carry them, so the Jobs view learns them here to say what a pending job
 * waits for. In memory, bounded; a reload forgets them (the job's details still show its script).
 */
import { JobMap } from './jobMap';

export class JobDependencies extends JobMap<string> {}
