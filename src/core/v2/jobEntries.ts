/**
 * The job listing (§4.1) checked and translated in one pass, as `lsEntries` does for folders: the
 * Jobs view lists every few seconds, and zod's copy of each row cost more than reading it. Each
 * row gets `typeof` tests on exactly the fields the schema `JobW` allows; a row they do not accept
 * (an old server's numeric id, a shape only zod's rules allow, or a wrong one) sends the whole
 * answer through `JobsW`, which then accepts it or names what is wrong.
 */
import type { TransportResponse } from '../http/transport';
import type { Job } from '../model';
import { parseJson, translateRows, validate } from './parse';
import { toJob } from './translate';
import { JobsW, type JobWire } from './wire';
import { isRecord } from '../records';

/** The jobs of a listing answer; MalformedResponseError when it is not one. */
export function parseJobs(res: TransportResponse, route: string): Job[] {
  const json = parseJson(res, route);
  return fastJobs(json) ?? (validate(JobsW, json, route, res.status).jobs ?? []).map(toJob);
}

function optStr(v: unknown): boolean {
  return v === null || v === undefined || typeof v === 'string';
}

function optNum(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === 'number' && Number.isFinite(v));
}

function isState(v: unknown): boolean {
  if (typeof v === 'string') return true;
  if (!Array.isArray(v)) return false;
  for (const s of v) if (typeof s !== 'string') return false;
  return true;
}

function isTime(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  return isRecord(v) && optNum(v.elapsed) && optNum(v.start) && optNum(v.end) && optNum(v.suspended) && optNum(v.limit);
}

function isJob(j: unknown): j is JobWire {
  if (!isRecord(j)) return false;
  const st = j.status;
  return (
    typeof j.jobId === 'string' &&
    optStr(j.name) &&
    isRecord(st) && isState(st.state) && optStr(st.stateReason) && optNum(st.exitCode) && optNum(st.interruptSignal) &&
    isTime(j.time) &&
    optStr(j.account) && optNum(j.allocationNodes) && optStr(j.cluster) && optStr(j.group) && optStr(j.nodes) &&
    optStr(j.partition) && optStr(j.user) && optStr(j.workingDirectory) && optNum(j.priority)
  );
}

/** The translated jobs when every row passes the checks of `JobW` with a text id, else undefined. */
export function fastJobs(json: unknown): Job[] | undefined {
  if (!isRecord(json)) return undefined;
  const rows = json.jobs;
  if (rows === null || rows === undefined) return [];
  return Array.isArray(rows) ? translateRows(rows, isJob, toJob) : undefined;
}
