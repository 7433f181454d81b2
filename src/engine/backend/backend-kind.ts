// The backends a real (non-sim) engine can be asked for, by name: apart from create-backend.ts
// so that reading a --backend flag loads no backend.

export type BackendKind = 'cpu' | 'webgpu' | 'auto';
export const BACKEND_KINDS: readonly BackendKind[] = ['cpu', 'webgpu', 'auto'];

export function parseBackendKind(value: string): BackendKind {
  if ((BACKEND_KINDS as readonly string[]).includes(value)) return value as BackendKind;
  throw new Error(`unknown backend "${value}"; choose one of ${BACKEND_KINDS.join(', ')}`);
}
