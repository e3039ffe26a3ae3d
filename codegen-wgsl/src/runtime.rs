//! Native runtime (feature `native`): runs a [`WgslFunc`] with wgpu on any
//! adapter (Vulkan, Metal, DX12; Mesa's lavapipe on CI machines).
//!
//! [`GpuRuntime::new`] returns `Ok(None)` when the machine has no adapter,
//! so tests can print a skip line and pass.

use std::time::{Duration, Instant};

use tessel_tir::eval::NDArray;

use crate::{BindingSource, WgslFunc};

/// A wgpu device and queue.
pub struct GpuRuntime {
    device: wgpu::Device,
    queue: wgpu::Queue,
    timestamps: bool,
    /// `name (backend, device type)` of the adapter.
    pub adapter: String,
}

/// A function's compute pipelines (see [`GpuRuntime::compile`]).
pub struct CompiledFunc {
    name: String,
    pipelines: Vec<wgpu::ComputePipeline>,
}

/// How long a run took.
#[derive(Clone, Debug)]
pub struct RunStats {
    /// GPU time of each kernel's compute pass (timestamp queries), when the
    /// adapter supports them.
    pub kernel_times: Option<Vec<Duration>>,
    /// Submit to completion, wall clock (upload and readback excluded).
    pub wall: Duration,
}

/// One kernel's compute pass: its pipeline, its bind group over the run's
/// buffers, and the workgroups to dispatch.
struct KernelPass<'p> {
    pipeline: &'p wgpu::ComputePipeline,
    bind: wgpu::BindGroup,
    dispatch: [u32; 3],
}

/// A run's timestamp queries: the query set, the buffer it resolves into,
/// and the mappable copy read back.
struct TimestampQueries {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    read: wgpu::Buffer,
}

impl GpuRuntime {
    /// A device on the first adapter wgpu finds (`WGPU_BACKEND` picks the
    /// backend); `Ok(None)` when there is none.
    pub fn new() -> Result<Option<GpuRuntime>, String> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        if std::env::var_os("WGPU_BACKEND").is_none() {
            // Vulkan/Metal/DX12 only: probing GL (EGL) is slow and noisy on
            // headless machines, and compute needs none of it.
            desc.backends = wgpu::Backends::PRIMARY;
        }
        let instance = wgpu::Instance::new(desc);
        let adapter =
            match pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                ..Default::default()
            })) {
                Ok(a) => a,
                Err(_) => return Ok(None),
            };
        let info = adapter.get_info();
        let timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let mut features = wgpu::Features::empty();
        if timestamps {
            features |= wgpu::Features::TIMESTAMP_QUERY;
        }
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("tessel"),
            required_features: features,
            required_limits: wgpu::Limits::downlevel_defaults().using_resolution(adapter.limits()),
            ..Default::default()
        }))
        .map_err(|e| format!("requesting a device: {e}"))?;
        Ok(Some(GpuRuntime {
            device,
            queue,
            timestamps,
            adapter: format!("{} ({:?}, {:?})", info.name, info.backend, info.device_type),
        }))
    }

    /// The device, for hosts that launch their own pipelines (the GPU
    /// benchmark runs TVM's WGSL on the same device as ours).
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }
    /// Whether the device was created with timestamp queries.
    pub fn has_timestamps(&self) -> bool {
        self.timestamps
    }

    /// Runs `f` on `args` (one array per parameter, 0-d arrays for scalars,
    /// as for the reference interpreter); outputs are written back in place.
    /// Compiles its pipelines first: a host that runs `f` again keeps them
    /// with [`GpuRuntime::compile`] and [`GpuRuntime::run_compiled`].
    pub fn run(&self, f: &WgslFunc, args: &mut [NDArray]) -> Result<RunStats, String> {
        let compiled = self.compile(f)?;
        self.run_compiled(f, &compiled, args)
    }

    /// `f`'s compute pipelines, one per kernel. Creating a pipeline is the
    /// driver's shader compile: seconds for a large kernel on a software
    /// adapter, so every repeated run should reuse them.
    pub fn compile(&self, f: &WgslFunc) -> Result<CompiledFunc, String> {
        let dev = &self.device;
        let scope = dev.push_error_scope(wgpu::ErrorFilter::Validation);
        let pipelines = f
            .kernels
            .iter()
            .map(|k| {
                let module = dev.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(&k.name),
                    source: wgpu::ShaderSource::Wgsl(k.source.as_str().into()),
                });
                dev.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(&k.name),
                    layout: None,
                    module: &module,
                    entry_point: Some(&k.name),
                    compilation_options: Default::default(),
                    cache: None,
                })
            })
            .collect();
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(format!("the driver refused `{}`: {e}", f.name));
        }
        Ok(CompiledFunc {
            name: f.name.clone(),
            pipelines,
        })
    }

    /// Runs `f` with pipelines [`GpuRuntime::compile`] made for it.
    pub fn run_compiled(
        &self,
        f: &WgslFunc,
        compiled: &CompiledFunc,
        args: &mut [NDArray],
    ) -> Result<RunStats, String> {
        if compiled.name != f.name || compiled.pipelines.len() != f.kernels.len() {
            return Err(format!(
                "the pipelines given were compiled for `{}`, not `{}`",
                compiled.name, f.name
            ));
        }
        let params = &f.func.params;
        if args.len() != params.len() {
            return Err(format!(
                "{} takes {} arguments, {} given",
                f.name,
                params.len(),
                args.len()
            ));
        }
        let dev = &self.device;
        let (param_bufs, temps) = self.upload_tensors(f, args);
        let ubuf = self.upload_uniform(f, args);
        let passes = self.bind_groups(f, compiled, &param_bufs, &temps, &ubuf)?;

        let n = f.kernels.len() as u32;
        let queries = self.timestamp_queries(n);
        let mut enc = dev.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some(&f.name),
        });
        for (i, p) in passes.iter().enumerate() {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(&f.kernels[i].name),
                timestamp_writes: queries.as_ref().map(|q| wgpu::ComputePassTimestampWrites {
                    query_set: &q.set,
                    beginning_of_pass_write_index: Some(2 * i as u32),
                    end_of_pass_write_index: Some(2 * i as u32 + 1),
                }),
            });
            pass.set_pipeline(p.pipeline);
            pass.set_bind_group(0, &p.bind, &[]);
            let d = p.dispatch;
            pass.dispatch_workgroups(d[0], d[1], d[2]);
        }
        if let Some(q) = &queries {
            enc.resolve_query_set(&q.set, 0..2 * n, &q.resolve, 0);
            enc.copy_buffer_to_buffer(&q.resolve, 0, &q.read, 0, 16 * n as u64);
        }
        let readbacks = self.encode_readbacks(f, &mut enc, &param_bufs);
        let start = Instant::now();
        self.queue.submit([enc.finish()]);
        dev.poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| format!("waiting for the GPU: {e}"))?;
        let wall = start.elapsed();

        for (i, staging) in readbacks {
            let bytes = self.read(&staging)?;
            let a = &args[i];
            let len = a.len() * a.dtype().bytes();
            args[i] = NDArray::from_le_bytes(a.dtype(), a.shape(), &bytes[..len])?;
        }
        let kernel_times = match &queries {
            Some(q) => Some(self.kernel_times(&q.read, n)?),
            None => None,
        };
        Ok(RunStats { kernel_times, wall })
    }

    /// Storage buffers holding the tensor arguments (`None` for scalar
    /// parameters), and the temporaries between kernels.
    fn upload_tensors(
        &self,
        f: &WgslFunc,
        args: &[NDArray],
    ) -> (Vec<Option<wgpu::Buffer>>, Vec<wgpu::Buffer>) {
        use wgpu::util::DeviceExt;
        let dev = &self.device;
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let mut param_bufs: Vec<Option<wgpu::Buffer>> = Vec::new();
        for (i, p) in f.func.params.iter().enumerate() {
            if f.func.param_buffer(p).is_none() {
                param_bufs.push(None);
                continue;
            }
            let mut bytes = args[i].to_le_bytes();
            while !bytes.len().is_multiple_of(4) || bytes.is_empty() {
                bytes.push(0);
            }
            param_bufs.push(Some(dev.create_buffer_init(
                &wgpu::util::BufferInitDescriptor {
                    label: Some(p.name()),
                    contents: &bytes,
                    usage,
                },
            )));
        }
        let temps: Vec<wgpu::Buffer> = f
            .temps
            .iter()
            .map(|(dt, n)| {
                dev.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("temp"),
                    size: ((*n as u64) * dt.bytes() as u64).max(4).div_ceil(4) * 4,
                    usage,
                    mapped_at_creation: false,
                })
            })
            .collect();
        (param_bufs, temps)
    }

    /// The `Params` uniform buffer: the scalar arguments and the tensors'
    /// sizes, 4 bytes each.
    fn upload_uniform(&self, f: &WgslFunc, args: &[NDArray]) -> wgpu::Buffer {
        use wgpu::util::DeviceExt;
        let ubytes = f.uniform_bytes(args);
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("params"),
                contents: &ubytes,
                usage: wgpu::BufferUsages::UNIFORM,
            })
    }

    /// Each kernel's pipeline, its bind group over the buffers, and the
    /// workgroups to dispatch.
    fn bind_groups<'p>(
        &self,
        f: &WgslFunc,
        compiled: &'p CompiledFunc,
        param_bufs: &[Option<wgpu::Buffer>],
        temps: &[wgpu::Buffer],
        ubuf: &wgpu::Buffer,
    ) -> Result<Vec<KernelPass<'p>>, String> {
        let mut passes = Vec::new();
        for (k, pipeline) in f.kernels.iter().zip(&compiled.pipelines) {
            let mut entries = Vec::new();
            for b in &k.storage {
                let buf = match b.source {
                    BindingSource::Param(i) => param_bufs[i]
                        .as_ref()
                        .ok_or_else(|| format!("parameter {i} is not a tensor"))?,
                    BindingSource::Temp(i) => &temps[i],
                };
                entries.push(wgpu::BindGroupEntry {
                    binding: b.binding,
                    resource: buf.as_entire_binding(),
                });
            }
            if let Some(b) = k.params_binding {
                entries.push(wgpu::BindGroupEntry {
                    binding: b,
                    resource: ubuf.as_entire_binding(),
                });
            }
            let bind = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(&k.name),
                layout: &pipeline.get_bind_group_layout(0),
                entries: &entries,
            });
            passes.push(KernelPass {
                pipeline,
                bind,
                dispatch: k.dispatch,
            });
        }
        Ok(passes)
    }

    /// Timestamp queries around each of `n` kernels' passes, when the
    /// device has them.
    fn timestamp_queries(&self, n: u32) -> Option<TimestampQueries> {
        let dev = &self.device;
        (self.timestamps && n > 0).then(|| TimestampQueries {
            set: dev.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("kernel times"),
                ty: wgpu::QueryType::Timestamp,
                count: 2 * n,
            }),
            resolve: dev.create_buffer(&wgpu::BufferDescriptor {
                label: Some("resolve"),
                size: 16 * n as u64,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            read: dev.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamps"),
                size: 16 * n as u64,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
        })
    }

    /// Copies every tensor a kernel writes into a staging buffer to read
    /// back: `(parameter index, staging buffer)`.
    fn encode_readbacks(
        &self,
        f: &WgslFunc,
        enc: &mut wgpu::CommandEncoder,
        param_bufs: &[Option<wgpu::Buffer>],
    ) -> Vec<(usize, wgpu::Buffer)> {
        let mut readbacks = Vec::new();
        for (i, buf) in param_bufs.iter().enumerate() {
            let Some(buf) = buf else { continue };
            let written = f.kernels.iter().any(|k| {
                k.storage
                    .iter()
                    .any(|b| b.read_write && b.source == BindingSource::Param(i))
            });
            if !written {
                continue;
            }
            let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("readback"),
                size: buf.size(),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            enc.copy_buffer_to_buffer(buf, 0, &staging, 0, buf.size());
            readbacks.push((i, staging));
        }
        readbacks
    }

    /// Each of `n` kernels' GPU time from the resolved timestamps.
    fn kernel_times(&self, read: &wgpu::Buffer, n: u32) -> Result<Vec<Duration>, String> {
        let bytes = self.read(read)?;
        let period = self.queue.get_timestamp_period() as f64;
        let ts: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect();
        Ok((0..n as usize)
            .map(|k| {
                let ns = ts[2 * k + 1].saturating_sub(ts[2 * k]) as f64 * period;
                Duration::from_nanos(ns as u64)
            })
            .collect())
    }

    fn read(&self, buf: &wgpu::Buffer) -> Result<Vec<u8>, String> {
        let slice = buf.slice(..);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| format!("waiting for a readback: {e}"))?;
        let bytes = slice
            .get_mapped_range()
            .map_err(|e| format!("mapping a readback: {e:?}"))?
            .to_vec();
        buf.unmap();
        Ok(bytes)
    }
}
