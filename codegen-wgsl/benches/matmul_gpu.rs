//! `cargo bench -p codegen-wgsl --bench matmul_gpu`: f32 matmul N×N×N on
//! the first WebGPU adapter (wgpu), Tessel's WGSL against Apache TVM 0.27's
//! WGSL for the same schedule, through one harness.
//!
//! Schedules: the course's `blocking` (local `cache_write`) and
//! `blocking_with_shared` (shared-memory cooperative fetch), book ch. 6.1,
//! read from `compiler-core/tests/data/schedule/book_gpu_matmul_*.py`.
//! TVM's shaders and launch parameters come from the JSON that
//! `tools/bench/tvm_wgsl.py` writes (`BENCH_TVM_WGSL=path`, default the
//! committed `tools/bench/data/tvm_wgsl.json`), so this runs where TVM is
//! not installed.
//!
//! Both kernels see the same device, the same input buffers and the same
//! launch code: one checked run each, then `BENCH_REPEAT` timed runs of
//! each, interleaved (GPU timestamp queries when the adapter has them, else
//! submit-to-idle wall clock); the best of each is reported. Each output is checked against the other
//! and against f64 dot products at sampled positions.
//!
//! Two more rows run Tessel's WGSL only: a hand-written tiled kernel (4×4
//! outputs per thread from 64×64 workgroup tiles, 64×16 and 16×64 tiles of
//! A and B in shared memory, vec4 loads and stores), the yardstick for
//! tuned code, and with `BENCH_TUNE_TRIALS=N` the program the auto-tuner
//! finds in N trials on the same adapter (MetaSchedule's default GPU space,
//! measured through the GPU backend; the tuning time and the best trace are
//! printed, the trace also to `BENCH_OUT/gpu_tuned_trace.py`).
//!
//! Environment: `BENCH_N` (1024; the JSON must hold that size),
//! `BENCH_REPEAT` (default 10), `BENCH_TUNE_TIME_LIMIT` (seconds a tuning
//! candidate's first run may take, default 2), `BENCH_OUT=dir` appends result rows to
//! `dir/gpu.tsv`, `BENCH_PRINT=1` prints both compilers' WGSL.

use std::rc::Rc;
use std::time::Instant;

use codegen_wgsl::runtime::GpuRuntime;
use codegen_wgsl::{build_func, BindingSource, GpuLimits};
use compiler_core::eval::Rng;
use compiler_core::schedule::json::Json;
use compiler_core::schedule::replay::run_python;
use compiler_core::schedule::Schedule;
use compiler_core::tvmscript::builder::parse_script;

/// The repository root: where this crate was built, or the current
/// directory for a binary copied to another machine.
fn root() -> String {
    let built = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    if std::path::Path::new(built).join("tools/bench").exists() {
        built.to_string()
    } else {
        ".".to_string()
    }
}

const CASES: &[(&str, &str)] = &[
    ("blocking", "book_gpu_matmul_blocking"),
    (
        "blocking_with_shared",
        "book_gpu_matmul_blocking_with_shared",
    ),
];

/// One benchmark row: its label, Tessel's kernels and TVM's (when the JSON
/// has them, or why not).
type Row = (String, Vec<Kernel>, Option<Result<Vec<Kernel>, String>>);

/// One compute shader and how to launch it (either compiler's).
struct Kernel {
    source: String,
    entry: String,
    grid: [u32; 3],
    /// (binding, parameter index: 0 = A, 1 = B, 2 = C)
    storage: Vec<(u32, usize)>,
    /// (binding, u32 words)
    uniform: Option<(u32, Vec<u32>)>,
}

fn main() {
    let n: usize = env_num("BENCH_N", 1024);
    let repeat: usize = env_num("BENCH_REPEAT", 10).max(1);
    let rt = match GpuRuntime::new() {
        Ok(Some(rt)) => Rc::new(rt),
        Ok(None) => {
            println!("GPU benchmark skipped: no WebGPU adapter");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    let tvm_path = std::env::var("BENCH_TVM_WGSL")
        .unwrap_or_else(|_| format!("{}/tools/bench/data/tvm_wgsl.json", root()));
    let tvm_json = std::fs::read_to_string(&tvm_path)
        .ok()
        .and_then(|t| Json::parse(&t).ok());
    if tvm_json.is_none() {
        println!("note: no TVM WGSL at {tvm_path}: Tessel only");
    }
    println!(
        "GPU: f32 matmul {n}x{n}x{n} on {} ({}), best of {repeat}, runs interleaved",
        rt.adapter,
        if rt.has_timestamps() {
            "GPU timestamps"
        } else {
            "wall clock, no timestamp queries"
        }
    );

    let mut rng = Rng::new(42);
    let a: Vec<f32> = (0..n * n).map(|_| rng.next_f32()).collect();
    let b: Vec<f32> = (0..n * n).map(|_| rng.next_f32()).collect();
    let h = Harness::new(&rt, n, &a, &b);
    let flops = 2.0 * (n as f64).powi(3);
    let out_dir = std::env::var("BENCH_OUT").ok();
    println!(
        "{:<22} {:>12} {:>12} {:>10} {:>12}",
        "schedule", "Tessel GF/s", "TVM GF/s", "Tessel/TVM", "Tessel ms"
    );
    let mut rows: Vec<Row> = CASES
        .iter()
        .map(|(label, case)| {
            (
                label.to_string(),
                our_kernels(case, n),
                tvm_json.as_ref().map(|j| tvm_kernels(j, label, n)),
            )
        })
        .collect();
    if n.is_multiple_of(64) {
        rows.push((
            "hand-written tiled".into(),
            vec![hand_tiled_kernel(n)],
            None,
        ));
    } else {
        println!("note: the hand-written kernel needs n divisible by 64");
    }
    let trials = env_num("BENCH_TUNE_TRIALS", 0);
    if trials > 0 {
        let (kernels, tuning) = tuned_kernels(&rt, n, trials);
        println!("{tuning}");
        rows.push((format!("tuned ({trials} trials)"), kernels, None));
    }
    for (label, ours, theirs) in &rows {
        let label = label.as_str();
        // One run each (checked), then `repeat` timed runs, Tessel's and
        // TVM's interleaved so both see the same machine load; best of each.
        let p_ours = h.prepare(ours);
        h.clear();
        h.run(&p_ours);
        let c_ours = h.output();
        check(&a, &b, &c_ours, n, label, "Tessel");
        let p_tvm = match theirs {
            Some(Ok(k)) => {
                let p = h.prepare(k);
                h.clear();
                h.run(&p);
                let c_tvm = h.output();
                check(&a, &b, &c_tvm, n, label, "TVM");
                let d = max_rel_diff(&c_ours, &c_tvm);
                assert!(d < 1e-3, "{label}: Tessel and TVM differ by {d}");
                Some(p)
            }
            Some(Err(e)) => {
                println!("note: {label}: {e}");
                None
            }
            None => None,
        };
        let (mut t_ours, mut best_tvm) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..repeat {
            t_ours = t_ours.min(h.run(&p_ours));
            if let Some(p) = &p_tvm {
                best_tvm = best_tvm.min(h.run(p));
            }
        }
        let t_tvm = p_tvm.is_some().then_some(best_tvm);
        let gf = |t: f64| flops / t / 1e9;
        let tvm_gf = t_tvm.map(gf);
        println!(
            "{:<22} {:>12.1} {:>12} {:>10} {:>12.2}",
            label,
            gf(t_ours),
            tvm_gf.map_or("-".into(), |g| format!("{g:.1}")),
            tvm_gf.map_or("-".into(), |g| format!("{:.2}x", gf(t_ours) / g)),
            t_ours * 1e3
        );
        if let Some(dir) = &out_dir {
            use std::io::Write;
            let _ = std::fs::create_dir_all(dir);
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(format!("{dir}/gpu.tsv"))
                .expect("BENCH_OUT");
            writeln!(
                f,
                "{label}\t{n}\t{:.3}\t{}\t{}\t{}",
                gf(t_ours),
                tvm_gf.map_or("-".into(), |g| format!("{g:.3}")),
                rt.adapter,
                if rt.has_timestamps() {
                    "timestamps"
                } else {
                    "wall"
                }
            )
            .expect("BENCH_OUT");
        }
    }
}

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Tessel: the schedule case at size `n`, built by codegen-wgsl.
fn our_kernels(case: &str, n: usize) -> Vec<Kernel> {
    let path = format!("{}/compiler-core/tests/data/schedule/{case}.py", root());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let text = text.replace("1024", &n.to_string());
    let (program, schedule) = text
        .split_once("# --- schedule ---")
        .expect("a schedule section");
    let module = parse_script(program)
        .unwrap_or_else(|d| panic!("{case}: {}", d.message))
        .to_module();
    let mut sch = Schedule::new(module).expect("schedule");
    run_python(&mut sch, schedule).unwrap_or_else(|d| panic!("{case}: {}", d.message));
    harness_kernels(sch.module(), case)
}

/// `module`'s only function built by codegen-wgsl, as kernels the harness
/// launches (A, B, C bound; no temporaries or scalars).
fn harness_kernels(module: &compiler_core::ir::IRModule, case: &str) -> Vec<Kernel> {
    let (name, f) = module.prim_funcs().next().expect("a function");
    let w = build_func(name, f, &GpuLimits::default()).unwrap_or_else(|e| panic!("{case}: {e}"));
    if std::env::var_os("BENCH_PRINT").is_some() {
        println!("{}", w.wgsl());
    }
    assert!(
        w.temps.is_empty() && w.uniform.is_empty(),
        "{case}: the benchmark harness binds only A, B, C"
    );
    w.kernels
        .iter()
        .map(|k| Kernel {
            source: k.source.clone(),
            entry: k.name.clone(),
            grid: k.dispatch,
            storage: k
                .storage
                .iter()
                .map(|s| match s.source {
                    BindingSource::Param(i) => (s.binding, i),
                    BindingSource::Temp(_) => panic!("{case}: temporaries"),
                })
                .collect(),
            uniform: k.params_binding.map(|b| (b, vec![0; 4])),
        })
        .collect()
}

fn field<'a>(j: &'a Json, key: &str) -> Option<&'a Json> {
    match j {
        Json::Object(items) => items.iter().find(|(k, _)| k == key).map(|(_, v)| v),
        _ => None,
    }
}

/// TVM: the kernels of `schedule` at size `n` from tvm_wgsl.py's JSON.
fn tvm_kernels(j: &Json, schedule: &str, n: usize) -> Result<Vec<Kernel>, String> {
    let cases = field(j, "cases")
        .and_then(Json::as_array)
        .ok_or("no `cases`")?;
    let case = cases
        .iter()
        .find(|c| {
            field(c, "schedule").and_then(Json::as_str) == Some(schedule)
                && field(c, "n").and_then(Json::as_i64) == Some(n as i64)
        })
        .ok_or_else(|| {
            format!("the TVM JSON has no {schedule} at n = {n} (tools/bench/tvm_wgsl.py --sizes)")
        })?;
    let kernels = field(case, "kernels")
        .and_then(Json::as_array)
        .ok_or("no `kernels`")?;
    let nums = |k: &Json, key: &str| -> Result<Vec<i64>, String> {
        field(k, key)
            .and_then(Json::as_array)
            .ok_or(format!("no `{key}`"))?
            .iter()
            .map(|x| x.as_i64().ok_or(format!("`{key}`: not an integer")))
            .collect()
    };
    kernels
        .iter()
        .map(|k| {
            let grid = nums(k, "grid")?;
            let storage = field(k, "storage")
                .and_then(Json::as_array)
                .ok_or("no `storage`")?
                .iter()
                .map(|s| {
                    let b = field(s, "binding").and_then(Json::as_i64);
                    let p = field(s, "param").and_then(Json::as_i64);
                    match (b, p) {
                        (Some(b), Some(p)) if (0..3).contains(&p) => Ok((b as u32, p as usize)),
                        _ => Err("bad `storage` entry".to_string()),
                    }
                })
                .collect::<Result<Vec<_>, String>>()?;
            let uniform = match field(k, "uniform_binding").and_then(Json::as_i64) {
                Some(b) => Some((
                    b as u32,
                    nums(k, "uniform")?.into_iter().map(|v| v as u32).collect(),
                )),
                None => None,
            };
            if std::env::var_os("BENCH_PRINT").is_some() {
                println!("{}", field(k, "wgsl").and_then(Json::as_str).unwrap_or(""));
            }
            Ok(Kernel {
                source: field(k, "wgsl")
                    .and_then(Json::as_str)
                    .ok_or("no `wgsl`")?
                    .to_string(),
                entry: field(k, "entry")
                    .and_then(Json::as_str)
                    .ok_or("no `entry`")?
                    .to_string(),
                grid: [grid[0] as u32, grid[1] as u32, grid[2] as u32],
                storage,
                uniform,
            })
        })
        .collect()
}

/// What one compiler's kernels need to be launched.
struct Prepared {
    #[allow(clippy::type_complexity)]
    passes: Vec<(
        wgpu::ComputePipeline,
        wgpu::BindGroup,
        [u32; 3],
        Option<(u32, wgpu::Buffer)>,
    )>,
    ts: Option<(wgpu::QuerySet, wgpu::Buffer, wgpu::Buffer)>,
    nk: u32,
}

/// The device, the three tensors and a readback buffer.
struct Harness<'a> {
    rt: &'a GpuRuntime,
    bufs: [wgpu::Buffer; 3],
    staging: wgpu::Buffer,
    bytes: u64,
}

impl<'a> Harness<'a> {
    fn new(rt: &'a GpuRuntime, n: usize, a: &[f32], b: &[f32]) -> Self {
        use wgpu::util::DeviceExt;
        let dev = rt.device();
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let init = |label, data: &[f32]| {
            dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: &f32_bytes(data),
                usage,
            })
        };
        let bytes = (n * n * 4) as u64;
        let c = dev.create_buffer(&wgpu::BufferDescriptor {
            label: Some("C"),
            size: bytes,
            usage,
            mapped_at_creation: false,
        });
        let staging = dev.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Harness {
            rt,
            bufs: [init("A", a), init("B", b), c],
            staging,
            bytes,
        }
    }

    /// Pipelines, bind groups and timestamp queries for `kernels`.
    fn prepare(&self, kernels: &[Kernel]) -> Prepared {
        use wgpu::util::DeviceExt;
        let dev = self.rt.device();
        let mut passes = Vec::new();
        for k in kernels {
            let module = dev.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(&k.entry),
                source: wgpu::ShaderSource::Wgsl(k.source.as_str().into()),
            });
            let pipeline = dev.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&k.entry),
                layout: None,
                module: &module,
                entry_point: Some(&k.entry),
                compilation_options: Default::default(),
                cache: None,
            });
            let ubuf = k.uniform.as_ref().map(|(b, words)| {
                let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                bytes.resize(bytes.len().div_ceil(16).max(1) * 16, 0);
                (
                    *b,
                    dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some("uniform"),
                        contents: &bytes,
                        usage: wgpu::BufferUsages::UNIFORM,
                    }),
                )
            });
            let mut entries: Vec<wgpu::BindGroupEntry> = k
                .storage
                .iter()
                .map(|(b, p)| wgpu::BindGroupEntry {
                    binding: *b,
                    resource: self.bufs[*p].as_entire_binding(),
                })
                .collect();
            if let Some((b, buf)) = &ubuf {
                entries.push(wgpu::BindGroupEntry {
                    binding: *b,
                    resource: buf.as_entire_binding(),
                });
            }
            let bind = dev.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(&k.entry),
                layout: &pipeline.get_bind_group_layout(0),
                entries: &entries,
            });
            passes.push((pipeline, bind, k.grid, ubuf));
        }
        let nk = passes.len() as u32;
        let ts = self.rt.has_timestamps().then(|| {
            let set = dev.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("times"),
                ty: wgpu::QueryType::Timestamp,
                count: 2 * nk,
            });
            let resolve = dev.create_buffer(&wgpu::BufferDescriptor {
                label: Some("resolve"),
                size: 16 * nk as u64,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let read = dev.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamps"),
                size: 16 * nk as u64,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            (set, resolve, read)
        });
        Prepared { passes, ts, nk }
    }

    /// Zeroes C, so a kernel that writes nothing cannot pass the check.
    fn clear(&self) {
        let mut enc = self.rt.device().create_command_encoder(&Default::default());
        enc.clear_buffer(&self.bufs[2], 0, None);
        self.rt.queue().submit([enc.finish()]);
    }

    /// Seconds for one run.
    fn run(&self, p: &Prepared) -> f64 {
        let dev = self.rt.device();
        let queue = self.rt.queue();
        let Prepared { passes, ts, nk } = p;
        let nk = *nk;
        {
            let mut enc = dev.create_command_encoder(&Default::default());
            for (i, (pipeline, bind, grid, _)) in passes.iter().enumerate() {
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: None,
                    timestamp_writes: ts.as_ref().map(|(set, _, _)| {
                        wgpu::ComputePassTimestampWrites {
                            query_set: set,
                            beginning_of_pass_write_index: Some(2 * i as u32),
                            end_of_pass_write_index: Some(2 * i as u32 + 1),
                        }
                    }),
                });
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, bind, &[]);
                pass.dispatch_workgroups(grid[0], grid[1], grid[2]);
            }
            if let Some((set, resolve, read)) = &ts {
                enc.resolve_query_set(set, 0..2 * nk, resolve, 0);
                enc.copy_buffer_to_buffer(resolve, 0, read, 0, 16 * nk as u64);
            }
            let t0 = Instant::now();
            queue.submit([enc.finish()]);
            dev.poll(wgpu::PollType::wait_indefinitely())
                .expect("waiting for the GPU");
            let wall = t0.elapsed().as_secs_f64();
            let t = match &ts {
                Some((_, _, read)) => {
                    let bytes = self.read(read);
                    let period = queue.get_timestamp_period() as f64;
                    let stamps: Vec<u64> = bytes
                        .chunks_exact(8)
                        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                        .collect();
                    let ns: f64 = (0..nk as usize)
                        .map(|k| stamps[2 * k + 1].saturating_sub(stamps[2 * k]) as f64 * period)
                        .sum();
                    // A zero reading means the timestamps are not usable
                    // (some drivers): fall back to the wall clock.
                    if ns > 0.0 {
                        ns * 1e-9
                    } else {
                        wall
                    }
                }
                None => wall,
            };
            t
        }
    }

    fn output(&self) -> Vec<f32> {
        let dev = self.rt.device();
        let mut enc = dev.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(&self.bufs[2], 0, &self.staging, 0, self.bytes);
        self.rt.queue().submit([enc.finish()]);
        self.read(&self.staging)
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    fn read(&self, buf: &wgpu::Buffer) -> Vec<u8> {
        let slice = buf.slice(..);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        self.rt
            .device()
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("waiting for a readback");
        let bytes = slice.get_mapped_range().expect("mapping").to_vec();
        buf.unmap();
        bytes
    }
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Compares `c` with f64 dot products at 4096 positions spread over C
/// (every row and column band is hit).
fn check(a: &[f32], b: &[f32], c: &[f32], n: usize, label: &str, who: &str) {
    let mut rng = Rng::new(7);
    for s in 0..4096 {
        let (i, j) = if s < n {
            (s, (s * 7 + 3) % n)
        } else {
            (
                (rng.next_f64() * n as f64) as usize % n,
                (rng.next_f64() * n as f64) as usize % n,
            )
        };
        let want: f64 = (0..n)
            .map(|k| a[i * n + k] as f64 * b[k * n + j] as f64)
            .sum();
        let got = c[i * n + j] as f64;
        assert!(
            (got - want).abs() <= 1e-4 * (1.0 + want.abs()),
            "{label} ({who}): C[{i}, {j}] = {got}, expected {want}"
        );
    }
}

fn max_rel_diff(x: &[f32], y: &[f32]) -> f64 {
    x.iter()
        .zip(y)
        .map(|(a, b)| {
            (*a as f64 - *b as f64).abs() / (1.0 + (*a as f64).abs().max((*b as f64).abs()))
        })
        .fold(0.0, f64::max)
}

/// The hand-written kernel: each 16×16 workgroup computes a 64×64 tile of
/// C, each thread a 4×4 block of it (four vec4 accumulators); per 16-wide
/// step of k the workgroup stages a 64×16 tile of A (transposed, so a
/// thread reads its four rows' values side by side) and a 16×64 tile of B
/// in shared memory, every thread loading one vec4 of each.
fn hand_tiled_kernel(n: usize) -> Kernel {
    let source = format!(
        r#"
@group(0) @binding(0) var<storage, read> A: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> B: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> C: array<vec4<f32>>;
const N: u32 = {n}u;
var<workgroup> As: array<array<vec4<f32>, 16>, 16>;
var<workgroup> Bs: array<array<vec4<f32>, 16>, 16>;

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {{
  let row0 = wid.y * 64u;
  let col0 = wid.x * 64u;
  var acc0 = vec4<f32>(0.0);
  var acc1 = vec4<f32>(0.0);
  var acc2 = vec4<f32>(0.0);
  var acc3 = vec4<f32>(0.0);
  // Which vec4 of each tile this thread loads.
  let a_row = li / 4u;
  let a_quad = li % 4u;
  let b_k = li / 16u;
  let b_quad = li % 16u;
  for (var k0 = 0u; k0 < N; k0 = k0 + 16u) {{
    let a = A[((row0 + a_row) * N + k0) / 4u + a_quad];
    // As[k][r / 4][r % 4] = A[row0 + r, k0 + k]
    As[a_quad * 4u + 0u][a_row / 4u][a_row % 4u] = a.x;
    As[a_quad * 4u + 1u][a_row / 4u][a_row % 4u] = a.y;
    As[a_quad * 4u + 2u][a_row / 4u][a_row % 4u] = a.z;
    As[a_quad * 4u + 3u][a_row / 4u][a_row % 4u] = a.w;
    Bs[b_k][b_quad] = B[((k0 + b_k) * N + col0) / 4u + b_quad];
    workgroupBarrier();
    for (var k = 0u; k < 16u; k = k + 1u) {{
      let b = Bs[k][lid.x];
      let a4 = As[k][lid.y];
      acc0 = acc0 + a4.x * b;
      acc1 = acc1 + a4.y * b;
      acc2 = acc2 + a4.z * b;
      acc3 = acc3 + a4.w * b;
    }}
    workgroupBarrier();
  }}
  let r = row0 + lid.y * 4u;
  let q = col0 / 4u + lid.x;
  C[(r + 0u) * (N / 4u) + q] = acc0;
  C[(r + 1u) * (N / 4u) + q] = acc1;
  C[(r + 2u) * (N / 4u) + q] = acc2;
  C[(r + 3u) * (N / 4u) + q] = acc3;
}}
"#
    );
    codegen_wgsl::validate(&source).unwrap_or_else(|e| panic!("the hand-written kernel: {e}"));
    let groups = (n / 64) as u32;
    Kernel {
        source,
        entry: "main".into(),
        grid: [groups, groups, 1],
        storage: vec![(0, 0), (1, 1), (2, 2)],
        uniform: None,
    }
}

/// The host's wall clock, for the tuner's runner.
struct WallClock(Instant);

impl compiler_core::target::Host for WallClock {
    fn now_seconds(&self) -> f64 {
        self.0.elapsed().as_secs_f64()
    }
}

/// Tunes the n³ matmul for `trials` trials on `rt`'s adapter: the best
/// program's kernels, and a report of the tuning (time, trials, trace).
fn tuned_kernels(rt: &Rc<GpuRuntime>, n: usize, trials: usize) -> (Vec<Kernel>, String) {
    use codegen_wgsl::backend::GpuBackend;
    use tessel_tune::{tune, Database, Runner, SearchConfig, SpaceGenerator, TuneSession};
    use tessel_tune::{TuneTarget, Workload};
    let src = format!(
        r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer(({n}, {n}), "float32"), B: T.Buffer(({n}, {n}), "float32"), C: T.Buffer(({n}, {n}), "float32")):
    T.func_attr({{"global_symbol": "main", "tir.noalias": True}})
    for i, j, k in T.grid({n}, {n}, {n}):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#
    );
    let module = parse_script(&src)
        .unwrap_or_else(|d| panic!("{}", d.message))
        .to_module();
    let target = TuneTarget::parse("webgpu").expect("target");
    let workload = Workload::new(module).expect("workload");
    let mut space = SpaceGenerator::post_order_apply(&target);
    let config = SearchConfig::new(trials, 64.min(trials));
    let mut session = TuneSession::new(
        workload.clone(),
        target.clone(),
        &mut space,
        Database::new(),
        config,
    )
    .expect("a tuning session");
    let backend = GpuBackend::with_runtime(rt.clone());
    let clock = WallClock(Instant::now());
    let mut runner = Runner::new(&backend, &clock, &workload, &target).expect("a runner");
    // A software adapter needs seconds per 1024³ candidate.
    runner.time_limit_seconds = std::env::var("BENCH_TUNE_TIME_LIMIT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2.0);
    let started = Instant::now();
    let report = tune(&mut session, &mut runner, &mut |line| eprintln!("{line}")).expect("tuning");
    let seconds = started.elapsed().as_secs_f64();
    let trace = report
        .best
        .trace()
        .python(compiler_core::schedule::TraceDialect::default());
    if let Ok(dir) = std::env::var("BENCH_OUT") {
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(format!("{dir}/gpu_tuned_trace.py"), &trace);
    }
    let kernels = harness_kernels(report.best.module(), "tuned");
    let summary = format!(
        "tuned: {} trials in {seconds:.1} s ({} failed, {} wrong), best {:.1} GFLOPS as measured by the tuner\n{trace}",
        report.trials,
        report.failed,
        report.wrong.len(),
        workload.flops / report.best_seconds / 1e9
    );
    (kernels, summary)
}
