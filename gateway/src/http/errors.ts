/** An error answered with the v2 error body `{errorType, message, causedBy, data, user}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: {
      causedBy?: string[] | null;
      errorType?: 'error' | 'validation';
      data?: unknown;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** A 400 validation error naming the field the way FastAPI/pydantic would. */
export function validationError(location: 'body' | 'query' | 'path', name: string, message: string): ApiError {
  return new ApiError(400, `1 validation error: ${name}: ${message.charAt(0).toLowerCase()}${message.slice(1)}`, {
    errorType: 'validation',
    data: { fields: [{ location, name, message }] },
  });
}

/** The v2 error body; every key present, unused ones null (§3.1.4). */
export interface V2ErrorBody {
  errorType: 'error' | 'validation';
  message: string;
  causedBy: string[] | null;
  data: unknown;
  user: string | null;
}

export function v2ErrorBody(message: string, extra: ApiError['extra'] = {}, user: string | null = null): V2ErrorBody {
  return { errorType: extra.errorType ?? 'error', message, causedBy: extra.causedBy ?? null, data: extra.data ?? null, user };
}
