//! WGSL backend: thread-bound TensorIR → WGSL compute shaders validated by naga. Filled in by the GPU-backend issue.
