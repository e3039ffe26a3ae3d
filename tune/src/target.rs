//! What the search needs to know about the target: CPU or GPU, cores, and
//! the GPU's limits (WebGPU's defaults, which every adapter offers).

use compiler_core::target::TargetSpec;

use crate::error::TuneError;

/// A target as the tuner sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneTarget {
    /// The target as given (`llvm --num-cores=1`, `cuda`, `webgpu`).
    pub spec: TargetSpec,
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
    /// Parses a target string: `llvm …` and `c` are CPU targets; `cuda`,
    /// `nvidia/…`, `webgpu`, `metal`, `vulkan` are GPU targets.
    pub fn parse(text: &str) -> Result<TuneTarget, TuneError> {
        let text = text.trim();
        let head = text.split_whitespace().next().unwrap_or("");
        let kind = if head.starts_with("nvidia/") {
            "cuda"
        } else {
            match head {
                "llvm" | "c" | "cuda" | "webgpu" | "metal" | "vulkan" | "opencl" | "rocm" => head,
                _ => {
                    return Err(TuneError::Config(format!(
                        "unknown target `{text}` (expected llvm, c, cuda, nvidia/…, webgpu, metal or vulkan)"
                    )))
                }
            }
        };
        let mut num_cores = 1;
        for word in text.split_whitespace().skip(1) {
            if let Some(n) = word
                .strip_prefix("--num-cores=")
                .or_else(|| word.strip_prefix("-num-cores="))
            {
                num_cores = n.parse::<i64>().ok().filter(|n| *n > 0).ok_or_else(|| {
                    TuneError::Config(format!(
                        "`{word}`: the core count must be a positive integer"
                    ))
                })?;
            }
        }
        Ok(TuneTarget {
            spec: TargetSpec {
                kind: kind.to_string(),
                text: text.to_string(),
            },
            num_cores,
            max_threads_per_block: 256,
            max_shared_memory_bytes: 16384,
            max_local_memory_bytes: 1024,
        })
    }

    pub fn is_gpu(&self) -> bool {
        self.spec.is_gpu()
    }
}
