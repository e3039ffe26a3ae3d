//! What the search needs to know about the target: CPU or GPU, cores, and
//! the GPU's limits (WebGPU's defaults, which every adapter offers).

use compiler_core::target::{Target, TargetError};

use crate::error::TuneError;

/// A target as the tuner sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneTarget {
    /// The target as given (`llvm --num-cores=1`, `cuda`, `webgpu`).
    pub spec: Target,
    /// `--num-cores=N` (1 when absent: the wasm backend runs one thread).
    pub num_cores: i64,
    /// Largest workgroup (threads per block).
    pub max_threads_per_block: i64,
    /// Largest workgroup (shared) memory, in bytes.
    pub max_shared_memory_bytes: i64,
    /// Largest `local` (per-invocation) memory, in bytes: what fits in a
    /// thread's registers (256 words). Larger per-thread arrays spill to
    /// slow memory, and shader compilers take very long on them.
    pub max_local_memory_bytes: i64,
}

impl TuneTarget {
    /// Parses a target string ([`Target::parse`] decides its kind: `llvm …`
    /// and `c` are CPU targets; `cuda`, `nvidia/…`, `webgpu`, `metal`,
    /// `vulkan` are GPU targets).
    pub fn parse(text: &str) -> Result<TuneTarget, TuneError> {
        let text = text.trim();
        let spec = Target::parse(text).map_err(|e| match e {
            TargetError::UnknownKind { .. } => TuneError::Config(format!(
                "unknown target `{text}` (expected llvm, c, cuda, nvidia/…, webgpu, metal or vulkan)"
            )),
            TargetError::BadCoreCount { .. } => TuneError::Config(e.to_string()),
        })?;
        Ok(TuneTarget {
            num_cores: spec.num_cores.map_or(1, i64::from),
            spec,
            max_threads_per_block: 256,
            max_shared_memory_bytes: 16384,
            max_local_memory_bytes: 1024,
        })
    }

    pub fn is_gpu(&self) -> bool {
        self.spec.is_gpu()
    }
}
