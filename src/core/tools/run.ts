/** Running a tool: the input checked against its schema, the answer bounded, a failure in words. */
import { sidecarScratch } from '../sidecar/sidecar';
import { z } from 'zod';
import { InvalidInputError } from '../errors';
import type { FirecrestClient } from '../client';
import { bounded, failureSentence } from './format';
import type { ToolConfirmation, ToolContext, ToolDefinition, ToolResult } from './types';

/** A Slurm job id: `812`, or an array task `812_3`. */
export const jobIdText = z.string().regex(/^\d+(_\d+)?$/, 'a Slurm job id such as 812 or 812_3');

/** What every tool takes to say where it works. */
export const where = {
  connection: z.string().min(1).optional().describe('The FirecREST connection (profile) name, as firecrest_connections lists it. Omit for the default connection.'),
  system: z.string().min(1).optional().describe('The cluster (system) name, as firecrest_connections lists it. Omit when the connection has one system or a default one.'),
};

function parse<S extends z.ZodObject>(def: ToolDefinition<S>, raw: unknown): z.infer<S> {
  const parsed = def.input.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const why = parsed.error.issues.map((i) => `${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`).join('; ');
  throw new InvalidInputError(`the input of ${def.name} does not fit its schema (${why})`);
}

/** Runs a tool; never throws (a failure is an answer in words, never a stack). */
export async function runTool<S extends z.ZodObject>(def: ToolDefinition<S>, raw: unknown, ctx: ToolContext): Promise<ToolResult> {
  try {
    return { text: bounded(await def.run(parse(def, raw), ctx)), isError: false };
  } catch (e) {
    return { text: failureSentence(e), isError: true };
  }
}

/** What a write tool will do, for its confirmation (a read tool has none). */
export async function confirmationOf<S extends z.ZodObject>(def: ToolDefinition<S>, raw: unknown, ctx: ToolContext): Promise<ToolConfirmation | undefined> {
  if (!def.confirm) return undefined;
  return def.confirm(parse(def, raw), ctx);
}

/** The system a call is about: named, the default one, or the connection's only one. */
export async function systemOf(client: FirecrestClient, ctx: ToolContext, given: string | undefined): Promise<string> {
  if (given) return given;
  if (ctx.defaultSystem) return ctx.defaultSystem;
  const systems = await client.systems({ signal: ctx.signal });
  if (systems.length === 1) return systems[0].name;
  throw new InvalidInputError(`name the system: this connection has ${systems.map((s) => s.name).join(', ') || 'no systems'}`);
}

/** The client and system of a call. */
export async function target(ctx: ToolContext, input: { connection?: string; system?: string }): Promise<{ client: FirecrestClient; system: string }> {
  const client = await ctx.client(input.connection);
  return { client, system: await systemOf(client, ctx, input.system) };
}

/** The user's folder on a system: `<default work dir filesystem>/<user>` when it exists (side-car jobs run and write there). */
export async function homeFolder(client: FirecrestClient, system: string, signal?: AbortSignal): Promise<string> {
  const sys = (await client.systems({ signal })).find((s) => s.name === system);
  const base = sys?.fileSystems.find((f) => f.defaultWorkDir)?.path ?? sys?.fileSystems[0]?.path ?? '/';
  const user = (await client.userInfo(system, { signal })).user.name;
  const home = `${base.replace(/\/+$/, '')}/${user}`;
  return client.stat(system, home, { signal }).then(() => home, () => base);
}

/** Where a side-car job of the tools runs, and the folder its files go in. */
export async function sidecarPlace(client: FirecrestClient, system: string, signal?: AbortSignal): Promise<{ workingDirectory: string; scratchDir: string }> {
  const home = await homeFolder(client, system, signal);
  return { workingDirectory: home, scratchDir: sidecarScratch(home) };
}

