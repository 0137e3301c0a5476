/**
 * Tools for agents: what a language model may ask of the cluster, each with an input schema, a
 * description written for a model to choose well, and a handler that answers in compact text.
 * The same definitions serve VS Code's language-model tools and the MCP server; they run on the
 * client core alone (plain Node). A write tool also says, before it runs, what it will do: the
 * confirmation a person sees (VS Code) or that the server's flag stands for (MCP).
 */
import type { z } from 'zod';
import type { FirecrestClient } from '../client';

/** A connection as a tool lists it (never a secret). */
export interface ToolConnection {
  name: string;
  url: string;
  /** `connected`, `signed-out`, `reconnecting`, `error`… as the host knows it. */
  state: string;
  error?: string;
}

export interface ToolContext {
  connections(): ToolConnection[];
  /** The signed-in client of a connection (the default one when omitted). */
  client(connection?: string): Promise<FirecrestClient>;
  /** A local file the caller names: workspace-relative in VS Code, relative to the working folder outside. */
  readLocal(path: string): Promise<{ data: Uint8Array; shownAs: string }>;
  /** The system a call names none of uses this (FIRECREST_SYSTEM), else the connection's only one. */
  defaultSystem?: string;
  signal?: AbortSignal;
}

export type ToolKind = 'read' | 'write';

/** What a write will do, in words, for the confirmation. */
export interface ToolConfirmation {
  title: string;
  /** Markdown: the script, the system, the partition, the path… */
  message: string;
}

export interface ToolDefinition<S extends z.ZodObject = z.ZodObject> {
  /** `firecrest_<verb>`: the name a model calls. */
  name: string;
  /** A short title for people (tool lists, confirmations). */
  title: string;
  /** For the model: what it does, when to use it, what it returns. */
  description: string;
  kind: ToolKind;
  input: S;
  /** Writes: what will happen (read from the cluster where needed, e.g. the partition a script asks for). */
  confirm?(input: z.infer<S>, ctx: ToolContext): Promise<ToolConfirmation>;
  /** The answer, as compact text (tables, quoted cluster data), bounded. */
  run(input: z.infer<S>, ctx: ToolContext): Promise<string>;
}

/** A tool's answer: its text, and whether it is a refusal or a failure in words. */
export interface ToolResult {
  text: string;
  isError: boolean;
}
