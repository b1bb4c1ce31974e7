// The package ships an Emscripten module without type declarations; only the calls vad.ts makes.
declare module '@echogarden/fvad-wasm' {
  export interface FvadModule {
    _fvad_new(): number;
    _fvad_free(inst: number): void;
    _fvad_reset(inst: number): void;
    _fvad_set_mode(inst: number, mode: number): number;
    _fvad_set_sample_rate(inst: number, rate: number): number;
    _fvad_process(inst: number, framePtr: number, length: number): number;
    _malloc(bytes: number): number;
    _free(ptr: number): void;
    HEAP16: Int16Array;
  }
  const factory: (moduleArg?: Record<string, unknown>) => Promise<FvadModule>;
  export default factory;
}
