//! WebAssembly SIMD128 backend: lowered TensorIR → wasm module (wasm-encoder), validated with wasmparser. Filled in by the CPU-backend issue.
