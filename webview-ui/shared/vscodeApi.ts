/**
 * The typed face of `acquireVsCodeApi()`: post messages of the panel's protocol, and keep its
 * state across hide/show and reloads. It may be acquired once per page, hence the one wrapper.
 */
interface RawVsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): RawVsCodeApi;

export interface VsCodeApi<ToHost, State> {
  post(message: ToHost): void;
  state(): State | undefined;
  saveState(state: State): void;
}

export function vscodeApi<ToHost, State>(): VsCodeApi<ToHost, State> {
  const api = acquireVsCodeApi();
  return {
    post: (m) => api.postMessage(m),
    state: () => (api.getState() as State | null) ?? undefined,
    saveState: (s) => api.setState(s),
  };
}
