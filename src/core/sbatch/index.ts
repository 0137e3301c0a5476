/** The one sbatch parser and its vocabulary; see parser.ts. */
export { parseSbatchScript } from './parser';
export { SBATCH_OPTIONS, optionByLong, optionByShort, resolveLong, type SbatchOption, type ValueKind } from './options';
export { formatTime, parseArray, parseDependency, parseMemory, parseTime, DEPENDENCY_TYPES, MAIL_TYPES } from './values';
export type { ParseProblem, ParseProblemCode, SbatchDirective, SbatchScript, Span, TypedValue, ValueItem } from './types';
