// The part of the WebAssembly JavaScript API that dsp/fft.ts uses. Node has it as a global, but neither
// lib ES2023 nor @types/node declares it (it lives in lib DOM, which the server does not load).
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
  }
  class Memory {
    constructor(descriptor: { readonly initial: number; readonly maximum?: number });
    readonly buffer: ArrayBuffer;
  }
  class Instance {
    constructor(module: Module, imports?: Record<string, Record<string, unknown>>);
    readonly exports: Record<string, unknown>;
  }
}
