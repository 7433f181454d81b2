// Node has WebAssembly at run time, but @types/node does not declare it (TypeScript keeps it in
// the DOM lib, which kb does not load). These are the few parts the CPU backend uses.

export interface WasmMemory {
  readonly buffer: SharedArrayBuffer;
  grow(pages: number): number;
}

export interface WasmModule {
  readonly __wasmModule: unique symbol;
}

interface WebAssemblyApi {
  Memory: new (descriptor: { initial: number; maximum: number; shared: boolean }) => WasmMemory;
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: object) => { exports: Record<string, unknown> };
}

export const wasm = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;
