import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { compileKernel, kernelModule, kernelModuleText } from './build-wasm.js';

describe('the generated WebAssembly kernel', () => {
  it('is the compiled form of its AssemblyScript source (npm run build:wasm regenerates it)', async () => {
    expect(await readFile(kernelModule, 'utf8')).toBe(kernelModuleText(await compileKernel()));
  });
});
