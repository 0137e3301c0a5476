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
