/** Read tools about the clusters: connections and systems, partitions with their load, reservations. */
import { z } from 'zod';
import { messageOf } from '../errors';
import type { Job } from '../model';
import { duration, table, when } from './format';
import { target, where } from './run';
import type { ToolDefinition } from './types';

export const connectionsTool: ToolDefinition = {
  name: 'firecrest_connections',
  title: 'List FirecREST connections and systems',
  description: 'Lists the FirecREST connections (HPC sites) the user has set up, whether each is signed in and answering, and the systems (clusters) of each with their health. Call this first to learn the connection and system names the other firecrest tools take.',
  kind: 'read',
  input: z.object({}),
  async run(_input, ctx) {
    const rows: string[][] = [];
    for (const c of ctx.connections()) {
      let systems = c.error ?? '';
      if (c.state !== 'signed-out') {
        try {
          const client = await ctx.client(c.name);
          systems = (await client.systems({ signal: ctx.signal })).map((s) => `${s.name} (${s.health.status})`).join(', ') || 'none';
        } catch (e) {
          systems = `not listed: ${messageOf(e)}`;
        }
      }
      rows.push([c.name, c.state, c.url, systems]);
    }
    if (!rows.length) return 'No FirecREST connection is set up.';
    return table(['connection', 'state', 'url', 'systems (health)'], rows);
  },
};

const partitionsInput = z.object({ ...where });

export const partitionsTool: ToolDefinition<typeof partitionsInput> = {
  name: 'firecrest_partitions',
  title: 'List partitions with their load',
  description: 'Lists the partitions (queues) of a cluster: state, nodes, CPUs, maximum time limit, which is the default, and how many jobs of all users run and wait in each now. Use it to choose where to submit a job and to judge how long it may wait.',
  kind: 'read',
  input: partitionsInput,
  async run(input, ctx) {
    const { client, system } = await target(ctx, input);
    const [partitions, jobs] = await Promise.all([
      client.partitions(system, { signal: ctx.signal }),
      client.jobs(system, { allUsers: true, signal: ctx.signal }).catch(() => undefined),
    ]);
    const count = (p: string, state: (j: Job) => boolean): number | string => (jobs ? jobs.filter((j) => j.partition === p && state(j)).length : '?');
    const rows = partitions.map((p) => [
      p.name, p.state, p.totalNodes, p.cpus, duration(p.maxTimeSeconds), p.isDefault ? 'yes' : '',
      count(p.name, (j) => j.stateClass === 'running'), count(p.name, (j) => j.stateClass === 'pending'),
    ]);
    const note = jobs ? '' : '\n(The jobs of all users could not be listed here: running and waiting counts unknown.)';
    return `Partitions of ${system}:\n${table(['partition', 'state', 'nodes', 'cpus', 'max time', 'default', 'running jobs', 'waiting jobs'], rows)}${note}`;
  },
};

const reservationsInput = z.object({ ...where });

export const reservationsTool: ToolDefinition<typeof reservationsInput> = {
  name: 'firecrest_reservations',
  title: 'List reservations',
  description: 'Lists the reservations of a cluster (maintenance windows and reserved nodes): name, state, start and end (UTC), nodes, and who may use them when the site says. Use it before submitting a long job, or to explain why a job waits.',
  kind: 'read',
  input: reservationsInput,
  async run(input, ctx) {
    const { client, system } = await target(ctx, input);
    const list = await client.reservations(system, { signal: ctx.signal });
    if (!list.length) return `No reservations on ${system}.`;
    const rows = list.map((r) => [r.name, r.state, when(r.start.getTime() / 1000), when(r.end.getTime() / 1000), r.nodeList, [...(r.users ?? []), ...(r.accounts ?? [])].join(', '), (r.flags ?? []).join(',')]);
    return `Reservations of ${system}:\n${table(['reservation', 'state', 'start (UTC)', 'end (UTC)', 'nodes', 'for', 'flags'], rows)}`;
  },
};
