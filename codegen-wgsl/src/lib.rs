//! WGSL backend: thread-bound TensorIR → WGSL compute shaders, each parsed
//! and validated by naga before it is returned.
//!
//! [`build_func`] lowers a function with [`lower_func_gpu`] (host/device
//! split, shared/local compaction, barriers), checks every kernel against
//! WebGPU's limits ([`GpuLimits`]) and writes one shader per kernel:
//!
//! - one storage binding per tensor the kernel touches (`read` or
//!   `read_write` from what it stores to), in parameter order, then the
//!   `global` temporaries between kernels; scalar and size parameters in one
//!   uniform struct `Params` after them;
//! - `shared` buffers as `var<workgroup>` arrays, `local` ones as
//!   function-scope `var` arrays, sized to the region used;
//! - `blockIdx`/`threadIdx` from `workgroup_id`/`local_invocation_id`
//!   (a grid wider than 65535 in a dimension is folded into y);
//! - `int64` narrowed to `i32` (constants checked);
//! - buffers' and loops' names kept, one statement per line.
//!
//! The native runtime (feature `native`, [`runtime`]) runs them with wgpu.

// A panic in WebAssembly kills the page: library code returns typed errors (tests may unwrap).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

use std::collections::{HashMap, HashSet};
use std::fmt::{self, Write as _};

use tessel_lower::gpu::{is_sync, lower_func_gpu, GpuFunc, GpuKernel};
use tessel_lower::{size_params, LowerOptions, LoweringReport};
use tessel_tir::diag::{Diagnostic, Span};
use tessel_tir::ir::{
    BinOp, Buffer, CmpOp, DataType, Expr, ExprKind, ForKind, IRModule, Intrinsic, PrimFunc,
    ScalarKind, Stmt, StmtKind, Var, VarId,
};

#[cfg(feature = "native")]
pub mod backend;
pub mod launch;
#[cfg(feature = "native")]
pub mod runtime;
pub mod source_only;

/// The WebGPU limits a kernel is checked against (defaults: the WebGPU
/// spec's guaranteed minimums).
#[derive(Clone, Debug)]
pub struct GpuLimits {
    pub max_invocations_per_workgroup: i64,
    pub max_workgroup_size: [i64; 3],
    pub max_workgroup_storage_bytes: i64,
    pub max_workgroups_per_dimension: i64,
}

impl Default for GpuLimits {
    fn default() -> Self {
        GpuLimits {
            max_invocations_per_workgroup: 256,
            max_workgroup_size: [256, 256, 64],
            max_workgroup_storage_bytes: 16384,
            max_workgroups_per_dimension: 65535,
        }
    }
}

/// A build failure: lowering, a limit, an unsupported construct, or a
/// shader naga rejected (a bug here; its message is included).
#[derive(Clone, Debug)]
pub struct CodegenError {
    pub message: String,
    pub span: Span,
}

impl CodegenError {
    fn new(message: impl Into<String>, span: Span) -> Self {
        CodegenError {
            message: message.into(),
            span,
        }
    }
    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic::error(self.message.clone(), self.span)
    }
}

impl fmt::Display for CodegenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CodegenError {}

type Result<T> = std::result::Result<T, CodegenError>;

/// What a storage binding holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum BindingSource {
    /// The function's parameter with this index (into `PrimFunc::params`).
    Param(usize),
    /// The temporary with this index (into [`WgslFunc::temps`]).
    Temp(usize),
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct StorageBinding {
    pub binding: u32,
    pub name: String,
    pub source: BindingSource,
    pub read_write: bool,
}

/// One compute shader and how to launch it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WgslKernel {
    pub name: String,
    pub source: String,
    pub workgroup_size: [u32; 3],
    /// Workgroups to dispatch, per dimension.
    pub dispatch: [u32; 3],
    pub storage: Vec<StorageBinding>,
    /// The binding of the `Params` uniform, when the kernel uses it.
    pub params_binding: Option<u32>,
}

/// One field of the `Params` uniform (4 bytes each, in order).
#[derive(Clone, Debug)]
pub enum UniformField {
    /// A scalar parameter (index into `PrimFunc::params`).
    Scalar { param: usize, dtype: DataType },
    /// A size variable of a buffer parameter (see `lower::size_params`).
    Size {
        buffer: usize,
        source: tessel_lower::SizeSource,
    },
}

/// A function compiled to WGSL: its kernels, run in order.
#[derive(Clone, Debug)]
pub struct WgslFunc {
    pub name: String,
    pub func: PrimFunc,
    pub lowered: GpuFunc,
    pub kernels: Vec<WgslKernel>,
    /// `global` buffers between kernels: element type and count.
    pub temps: Vec<(DataType, i64)>,
    pub uniform: Vec<UniformField>,
    pub report: LoweringReport,
}

impl WgslFunc {
    /// All shaders, each under a `// kernel NAME` header.
    pub fn wgsl(&self) -> String {
        let mut s = String::new();
        for k in &self.kernels {
            let _ = writeln!(
                s,
                "// kernel {}: dispatch ({}, {}, {}), workgroup_size ({}, {}, {})",
                k.name,
                k.dispatch[0],
                k.dispatch[1],
                k.dispatch[2],
                k.workgroup_size[0],
                k.workgroup_size[1],
                k.workgroup_size[2]
            );
            s.push_str(&k.source);
            s.push('\n');
        }
        s
    }
}

/// Compiles every PrimFunc of a module.
pub fn build(module: &IRModule, limits: &GpuLimits) -> Result<Vec<WgslFunc>> {
    module
        .prim_funcs()
        .map(|(n, f)| build_func(n, f, limits))
        .collect()
}

/// The options GPU lowering runs with.
pub fn lower_options() -> LowerOptions {
    LowerOptions {
        vector_bytes: 16,
        max_unroll: 256,
        promote: false,
        hoist: false,
        parallel_tasks: false,
        // Kernels are already parallel across invocations; explicit
        // `T.vectorized` loops still become vec4 accesses.
        auto_vectorize: false,
        unswitch: false,
        serialize_thread_bindings: false,
    }
}

/// Compiles one function (see the crate docs).
pub fn build_func(name: &str, func: &PrimFunc, limits: &GpuLimits) -> Result<WgslFunc> {
    let lowered = lower_func_gpu(name, func, &lower_options())
        .map_err(|e| CodegenError::new(e.message, e.span))?;
    // Uniform fields: scalar params, then size variables.
    let mut uniform = Vec::new();
    let mut uniform_vars: Vec<(Var, DataType)> = Vec::new();
    for (i, p) in func.params.iter().enumerate() {
        if func.param_buffer(p).is_none() {
            let dt = p.dtype();
            wgsl_scalar(dt).map_err(|m| {
                CodegenError::new(format!("scalar parameter {}: {m}", p.name()), func.span)
            })?;
            uniform.push(UniformField::Scalar {
                param: i,
                dtype: dt,
            });
            uniform_vars.push((p.clone(), dt));
        }
    }
    for sp in size_params(func) {
        uniform.push(UniformField::Size {
            buffer: sp.buffer,
            source: sp.source,
        });
        uniform_vars.push((sp.var.clone(), DataType::i32()));
    }
    let mut temps = Vec::new();
    for t in &lowered.temps {
        let n = t
            .const_shape()
            .and_then(|s| s.first().copied())
            .ok_or_else(|| {
                CodegenError::new(
                    format!(
                        "temporary buffer {} needs a constant size on the GPU",
                        t.name
                    ),
                    t.span,
                )
            })?;
        temps.push((t.dtype, n));
    }
    let mut kernels = Vec::new();
    for k in &lowered.kernels {
        let wk = Emitter::new(func, &lowered, &uniform_vars).kernel(k, limits)?;
        validate(&wk.source).map_err(|m| {
            CodegenError::new(
                format!(
                    "internal: naga rejected the WGSL of kernel {}: {m}\n{}",
                    k.name, wk.source
                ),
                func.span,
            )
        })?;
        kernels.push(wk);
    }
    Ok(WgslFunc {
        name: name.to_string(),
        func: func.clone(),
        report: lowered.report.clone(),
        lowered,
        kernels,
        temps,
        uniform,
    })
}

/// Parses and validates WGSL with naga; the error text on failure.
pub fn validate(source: &str) -> std::result::Result<(), String> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string(source))?;
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| e.emit_to_string(source))?;
    Ok(())
}

/// The WGSL spelling of a scalar type, narrowing `int64` to `i32`.
fn wgsl_scalar(dt: DataType) -> std::result::Result<&'static str, String> {
    Ok(match (dt.kind, dt.bits) {
        (ScalarKind::Float, 32) => "f32",
        (ScalarKind::Int, 32) | (ScalarKind::Int, 64) => "i32",
        (ScalarKind::UInt, 32) => "u32",
        (ScalarKind::Bool, _) => "bool",
        _ => {
            return Err(format!(
                "{} has no WGSL type here (float32, int32, int64 narrowed to i32, uint32, bool)",
                dt.element()
            ))
        }
    })
}

fn wgsl_type(dt: DataType) -> std::result::Result<String, String> {
    let s = wgsl_scalar(dt.element())?;
    match dt.lanes {
        1 => Ok(s.to_string()),
        2..=4 => Ok(format!("vec{}<{s}>", dt.lanes)),
        n => Err(format!("{n}-lane vectors have no WGSL type (at most 4)")),
    }
}

const RESERVED: &[&str] = &[
    "array",
    "bool",
    "break",
    "case",
    "const",
    "continue",
    "default",
    "diagnostic",
    "discard",
    "else",
    "enable",
    "f16",
    "f32",
    "false",
    "fn",
    "for",
    "i32",
    "if",
    "let",
    "loop",
    "override",
    "ptr",
    "requires",
    "return",
    "sampler",
    "struct",
    "switch",
    "true",
    "u32",
    "var",
    "vec2",
    "vec3",
    "vec4",
    "while",
    "mat2x2",
    "mat3x3",
    "mat4x4",
    "atomic",
    "alias",
    "function",
    "private",
    "storage",
    "uniform",
    "workgroup",
    "read",
    "write",
    "read_write",
    "params",
    "wid",
    "lid",
    "nwg",
    "self",
    "super",
    "type",
    "mod",
    "new",
];

struct Emitter<'a> {
    func: &'a PrimFunc,
    lowered: &'a GpuFunc,
    uniform_vars: &'a [(Var, DataType)],
    names: HashMap<VarId, String>,
    used: HashSet<String>,
    /// Buffer data variable → the WGSL array name.
    buffers: HashMap<VarId, String>,
    out: String,
    indent: usize,
    tmp: usize,
    error: Option<CodegenError>,
    needs_floordiv: bool,
    needs_floormod: bool,
    /// Loop and launch variables known to be non-negative.
    nonneg_vars: HashSet<VarId>,
}

impl<'a> Emitter<'a> {
    fn new(func: &'a PrimFunc, lowered: &'a GpuFunc, uniform_vars: &'a [(Var, DataType)]) -> Self {
        Emitter {
            func,
            lowered,
            uniform_vars,
            names: HashMap::new(),
            used: HashSet::new(),
            buffers: HashMap::new(),
            out: String::new(),
            indent: 1,
            tmp: 0,
            error: None,
            needs_floordiv: false,
            needs_floormod: false,
            nonneg_vars: HashSet::new(),
        }
    }

    fn fresh_name(&mut self, base: &str) -> String {
        let mut s: String = base
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) || s.starts_with("__") {
            s = format!("v{s}");
        }
        if RESERVED.contains(&s.as_str()) {
            s.push('_');
        }
        let mut name = s.clone();
        let mut i = 1;
        while self.used.contains(&name) {
            name = format!("{s}_{i}");
            i += 1;
        }
        self.used.insert(name.clone());
        name
    }

    fn var_name(&mut self, v: &Var) -> String {
        if let Some(n) = self.names.get(&v.id()) {
            return n.clone();
        }
        let n = self.fresh_name(v.name());
        self.names.insert(v.id(), n.clone());
        n
    }

    fn fail(&mut self, message: impl Into<String>, span: Span) {
        self.error
            .get_or_insert_with(|| CodegenError::new(message, span));
    }

    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn kernel(mut self, k: &GpuKernel, limits: &GpuLimits) -> Result<WgslKernel> {
        let wg = check_workgroup_size(k, limits)?;
        let shared = shared_buffers(k, limits)?;
        let grid = GridLayout::new(k, limits)?;

        // Names: builtins and launch variables first.
        for b in ["wid", "lid", "params"] {
            self.used.insert(b.to_string());
        }
        let mut decls = String::new();
        let storage = self.declare_storage(k, &mut decls)?;
        let free = tessel_tir::ir::visit::stmt_var_ids(&k.body);
        // The uniform's binding follows the storage ones.
        let params_binding = self.declare_uniform(&free, storage.len() as u32, &mut decls);
        self.declare_shared(&shared, &mut decls)?;
        self.emit_body(k, &grid, params_binding.is_some(), &free)?;
        let body = std::mem::take(&mut self.out);
        let source = self.kernel_source(k, wg, &grid, &decls, &body);
        let dispatch = grid.dispatch;
        Ok(WgslKernel {
            name: k.name.clone(),
            source,
            workgroup_size: [wg[0] as u32, wg[1] as u32, wg[2] as u32],
            dispatch: [dispatch[0] as u32, dispatch[1] as u32, dispatch[2] as u32],
            storage,
            params_binding,
        })
    }

    /// Declares one storage binding per parameter or temporary the kernel
    /// touches (parameters in order, then temporaries), `read_write` when
    /// it stores to it.
    fn declare_storage(
        &mut self,
        k: &GpuKernel,
        decls: &mut String,
    ) -> Result<Vec<StorageBinding>> {
        let (reads, writes) = tessel_lower::gpu::buffers_touched(&k.body);
        let mut storage = Vec::new();
        let mut binding = 0u32;
        let mut sources: Vec<(VarId, BindingSource, Buffer)> = Vec::new();
        for (i, p) in self.func.params.iter().enumerate() {
            if let Some(b) = self.func.param_buffer(p) {
                sources.push((b.data.id(), BindingSource::Param(i), b.clone()));
            }
        }
        for (i, t) in self.lowered.temps.iter().enumerate() {
            sources.push((t.data.id(), BindingSource::Temp(i), t.clone()));
        }
        for (data, source, b) in sources {
            if !reads.contains(&data) && !writes.contains(&data) {
                continue;
            }
            let ty = wgsl_scalar(b.dtype.element())
                .map_err(|m| CodegenError::new(format!("buffer {}: {m}", b.name), b.span))?;
            if ty == "bool" {
                return Err(CodegenError::new(
                    format!(
                        "buffer {}: bool tensors are not supported on WebGPU",
                        b.name
                    ),
                    b.span,
                ));
            }
            let name = self.fresh_name(&b.name);
            let rw = writes.contains(&data);
            let _ = writeln!(
                decls,
                "@group(0) @binding({binding}) var<storage, {}> {name}: array<{ty}>;",
                if rw { "read_write" } else { "read" }
            );
            self.buffers.insert(data, name.clone());
            storage.push(StorageBinding {
                binding,
                name,
                source,
                read_write: rw,
            });
            binding += 1;
        }
        Ok(storage)
    }

    /// Declares the `Params` uniform at `binding` when the kernel uses any
    /// of its variables (`free`); returns its binding then.
    fn declare_uniform(
        &mut self,
        free: &HashSet<VarId>,
        binding: u32,
        decls: &mut String,
    ) -> Option<u32> {
        let uses_uniform = self
            .uniform_vars
            .iter()
            .any(|(v, _)| free.contains(&v.id()));
        if !uses_uniform {
            return None;
        }
        let _ = writeln!(decls, "struct Params {{");
        for (v, dt) in self.uniform_vars {
            let n = self.var_name(v);
            let _ = writeln!(decls, "  {n}: {},", wgsl_scalar(*dt).unwrap_or("i32"));
        }
        let _ = writeln!(decls, "}}");
        let _ = writeln!(
            decls,
            "@group(0) @binding({binding}) var<uniform> params: Params;"
        );
        Some(binding)
    }

    /// Declares the `shared` buffers as `var<workgroup>` arrays.
    fn declare_shared(&mut self, shared: &[Buffer], decls: &mut String) -> Result<()> {
        for b in shared {
            let name = self.fresh_name(&b.name);
            let ty = wgsl_scalar(b.dtype.element())
                .map_err(|m| CodegenError::new(format!("buffer {}: {m}", b.name), b.span))?;
            let n = b.const_shape().map_or(0, |s| s[0]);
            let _ = writeln!(decls, "var<workgroup> {name}: array<{ty}, {n}>;");
            self.buffers.insert(b.data.id(), name);
        }
        Ok(())
    }

    /// Writes the kernel's body: the uniform's variables it uses, the launch
    /// variables from the workgroup and invocation ids, then its statements.
    fn emit_body(
        &mut self,
        k: &GpuKernel,
        grid: &GridLayout,
        uses_uniform: bool,
        free: &HashSet<VarId>,
    ) -> Result<()> {
        let launch_names: Vec<String> = k.launch.iter().map(|a| self.var_name(&a.var)).collect();
        if uses_uniform {
            for (v, dt) in self.uniform_vars {
                if free.contains(&v.id()) {
                    let n = self.var_name(v);
                    let ty = wgsl_scalar(*dt).unwrap_or("i32");
                    self.line(&format!("let {n}: {ty} = params.{n};"));
                }
            }
        }
        if grid.fold {
            self.line(&format!(
                "let block_linear: i32 = i32(wid.x) + i32(wid.y) * {};",
                grid.dispatch[0]
            ));
        }
        for (a, n) in k.launch.iter().zip(&launch_names) {
            self.nonneg_vars.insert(a.var.id());
            let c = ["x", "y", "z"][a.dim()];
            let value = if !a.is_block() {
                format!("i32(lid.{c})")
            } else if grid.fold {
                // blockIdx.x varies fastest.
                let inner: i64 = (0..a.dim()).map(|d| grid.grid[d]).product();
                format!("(block_linear / {inner}) % {}", grid.grid[a.dim()])
            } else {
                format!("i32(wid.{c})")
            };
            self.line(&format!("let {n}: i32 = {value};"));
        }
        self.stmt(&k.body);
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The shader: a header, the declarations, the helper functions the body
    /// needs, and the entry point around the body.
    fn kernel_source(
        &self,
        k: &GpuKernel,
        wg: [i64; 3],
        grid: &GridLayout,
        decls: &str,
        body: &str,
    ) -> String {
        let uses_lid = k.launch.iter().any(|a| !a.is_block());
        let uses_wid = k.launch.iter().any(|a| a.is_block());
        let mut src = String::new();
        let _ = writeln!(src, "// {}: generated by Tessel from TensorIR", k.name);
        src.push_str(decls);
        if self.needs_floordiv {
            src.push_str(
                "fn floordiv(a: i32, b: i32) -> i32 {\n  let q = a / b;\n  if (a % b != 0 && ((a < 0) != (b < 0))) {\n    return q - 1;\n  }\n  return q;\n}\n",
            );
        }
        if self.needs_floormod {
            src.push_str(
                "fn floormod(a: i32, b: i32) -> i32 {\n  let r = a % b;\n  if (r != 0 && ((r < 0) != (b < 0))) {\n    return r + b;\n  }\n  return r;\n}\n",
            );
        }
        let mut args = Vec::new();
        if uses_wid || grid.fold {
            args.push("@builtin(workgroup_id) wid: vec3<u32>".to_string());
        }
        if uses_lid {
            args.push("@builtin(local_invocation_id) lid: vec3<u32>".to_string());
        }
        let _ = writeln!(
            src,
            "@compute @workgroup_size({}, {}, {})\nfn {}({}) {{",
            wg[0],
            wg[1],
            wg[2],
            k.name,
            args.join(", ")
        );
        src.push_str(body);
        src.push_str("}\n");
        src
    }

    fn buffer_name(&mut self, b: &Buffer, span: Span) -> String {
        match self.buffers.get(&b.data.id()) {
            Some(n) => n.clone(),
            None => {
                self.fail(
                    format!("buffer {} is not available in this kernel", b.name),
                    span,
                );
                b.name.clone()
            }
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        if self.error.is_some() {
            return;
        }
        let span = s.span();
        match s.kind() {
            StmtKind::Seq(v) => v.iter().for_each(|x| self.stmt(x)),
            StmtKind::For(l) => {
                if l.kind == ForKind::ThreadBinding {
                    self.fail(
                        format!(
                            "loop {} bound to {} inside a kernel is not supported",
                            l.loop_var.name(),
                            l.thread_tag.clone().unwrap_or_default()
                        ),
                        span,
                    );
                    return;
                }
                let v = self.var_name(&l.loop_var);
                if self.nonneg(&l.min) {
                    self.nonneg_vars.insert(l.loop_var.id());
                }
                let min = self.expr(&l.min);
                let end = if l.min.is_const_int(0) {
                    self.expr(&l.extent)
                } else {
                    format!("{min} + {}", self.expr(&l.extent))
                };
                self.line(&format!(
                    "for (var {v}: i32 = {min}; {v} < {end}; {v} = {v} + 1) {{"
                ));
                self.indent += 1;
                self.stmt(&l.body);
                self.indent -= 1;
                self.line("}");
            }
            StmtKind::Store {
                buffer,
                value,
                indices,
            } => {
                let name = self.buffer_name(buffer, span);
                let Some(idx) = indices.first() else {
                    self.fail("store without an index", span);
                    return;
                };
                let val = self.expr(value);
                match idx.kind() {
                    _ if idx.dtype().lanes == 1 => {
                        let i = self.expr(idx);
                        let (i, val) = (strip_parens(&i), strip_parens(&val));
                        self.line(&format!("{name}[{i}] = {val};"));
                    }
                    ExprKind::Ramp { base, stride } => {
                        let t = self.tmp_name("v");
                        let b = self.tmp_name("i");
                        self.line(&format!("let {t} = {val};"));
                        let be = self.expr(base);
                        self.line(&format!("let {b}: i32 = {be};"));
                        let st = self.expr(stride);
                        for lane in 0..idx.dtype().lanes {
                            let c = ["x", "y", "z", "w"][lane as usize % 4];
                            let off = if lane == 0 {
                                b.clone()
                            } else if stride.is_const_int(1) {
                                format!("{b} + {lane}")
                            } else {
                                format!("{b} + {lane} * {st}")
                            };
                            self.line(&format!("{name}[{off}] = {t}.{c};"));
                        }
                    }
                    _ => self.fail("vector store with a non-ramp index", span),
                }
            }
            StmtKind::Let { var, value, body } => {
                let n = self.var_name(var);
                let v = self.expr(value);
                let ty = self.ty(value.dtype(), span);
                self.line(&format!("let {n}: {ty} = {v};"));
                self.stmt(body);
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                let c = self.expr(cond);
                self.line(&format!("if ({}) {{", strip_parens(&c)));
                self.indent += 1;
                self.stmt(then);
                self.indent -= 1;
                if let Some(o) = otherwise {
                    self.line("} else {");
                    self.indent += 1;
                    self.stmt(o);
                    self.indent -= 1;
                }
                self.line("}");
            }
            StmtKind::Evaluate(e) => {
                if is_sync(s) {
                    self.line("workgroupBarrier();");
                } else if e.as_int().is_none() {
                    self.fail("an expression statement has no WGSL form", span);
                }
            }
            StmtKind::Allocate { buffer, body } => {
                if buffer.scope == "local" {
                    let name = self.fresh_name(&buffer.name);
                    let n = buffer.const_shape().and_then(|s| s.first().copied());
                    let Some(n) = n else {
                        self.fail(
                            format!("local buffer {} needs a constant size", buffer.name),
                            span,
                        );
                        return;
                    };
                    let ty = self.ty(buffer.dtype.element(), span);
                    self.line(&format!("var {name}: array<{ty}, {n}>;"));
                    self.buffers.insert(buffer.data.id(), name);
                } else if buffer.scope != "shared" {
                    self.fail(
                        format!(
                            "buffer {} in scope {} cannot be allocated inside a kernel",
                            buffer.name, buffer.scope
                        ),
                        span,
                    );
                }
                self.stmt(body);
            }
            StmtKind::BlockRealize(_) => self.fail("internal: a block survived lowering", span),
        }
    }

    fn tmp_name(&mut self, base: &str) -> String {
        self.tmp += 1;
        self.fresh_name(&format!("{base}{}", self.tmp))
    }

    fn ty(&mut self, dt: DataType, span: Span) -> String {
        match wgsl_type(dt) {
            Ok(t) => t,
            Err(m) => {
                self.fail(m, span);
                "f32".into()
            }
        }
    }

    fn int_lit(&mut self, v: i64, dt: DataType, span: Span) -> String {
        if dt.is_bool() {
            return if v != 0 {
                "true".into()
            } else {
                "false".into()
            };
        }
        if dt.is_uint() {
            if v < 0 || v > u32::MAX as i64 {
                self.fail(format!("constant {v} does not fit in u32"), span);
            }
            return format!("{v}u");
        }
        if v < i32::MIN as i64 + 1 || v > i32::MAX as i64 {
            self.fail(
                format!(
                    "constant {v} does not fit in i32 (WGSL has no 64-bit integers; int64 \
                     indices are narrowed)"
                ),
                span,
            );
        }
        if v < 0 {
            format!("({v})")
        } else {
            format!("{v}")
        }
    }

    fn expr(&mut self, e: &Expr) -> String {
        let span = e.span();
        let dt = e.dtype();
        match e.kind() {
            ExprKind::Var(v) => self.var_name(v),
            ExprKind::Int(v) => {
                let s = self.int_lit(*v, dt, span);
                if dt.lanes > 1 {
                    let t = self.ty(dt, span);
                    format!("{t}({s})")
                } else {
                    s
                }
            }
            ExprKind::Float(v) => {
                if !v.is_finite() {
                    self.fail(format!("constant {v} has no WGSL literal"), span);
                }
                if dt.bits != 32 {
                    self.fail(format!("{dt} has no WGSL type here"), span);
                }
                let s = format!("{:?}", *v as f32);
                let s = if s.contains('.') || s.contains('e') {
                    s
                } else {
                    format!("{s}.0")
                };
                let s = if s.starts_with('-') {
                    format!("({s})")
                } else {
                    s
                };
                if dt.lanes > 1 {
                    format!("{}({s})", self.ty(dt, span))
                } else {
                    s
                }
            }
            ExprKind::Str(_) => {
                self.fail("string expression in a kernel", span);
                String::new()
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.expr(a);
                let y = self.expr(b);
                let int = dt.is_integer();
                match op {
                    BinOp::Add => format!("({x} + {y})"),
                    BinOp::Sub => format!("({x} - {y})"),
                    BinOp::Mul => format!("({x} * {y})"),
                    BinOp::Div => format!("({x} / {y})"),
                    BinOp::Mod => format!("({x} % {y})"),
                    BinOp::Min => format!("min({x}, {y})"),
                    BinOp::Max => format!("max({x}, {y})"),
                    BinOp::FloorDiv if int && dt.lanes == 1 => {
                        if let Some(k) = self.nonneg(a).then(|| power_of_two(b)).flatten() {
                            // Non-negative by a power of two: a shift (what
                            // the division would cost without the sign fix-up).
                            format!("({x} >> {k}u)")
                        } else if self.nonneg(a) && positive_const(b) {
                            format!("({x} / {y})")
                        } else {
                            self.needs_floordiv = true;
                            format!("floordiv({x}, {y})")
                        }
                    }
                    BinOp::FloorMod if int && dt.lanes == 1 => {
                        if let (true, Some(v)) =
                            (self.nonneg(a) && power_of_two(b).is_some(), b.as_int())
                        {
                            let mask = self.expr(&Expr::int(v - 1, b.dtype()));
                            format!("({x} & {mask})")
                        } else if self.nonneg(a) && positive_const(b) {
                            format!("({x} % {y})")
                        } else {
                            self.needs_floormod = true;
                            format!("floormod({x}, {y})")
                        }
                    }
                    BinOp::FloorDiv if !int => format!("floor({x} / {y})"),
                    BinOp::FloorMod if !int => format!("({x} - floor({x} / {y}) * {y})"),
                    _ => {
                        self.fail("vector floor division has no WGSL form here", span);
                        String::new()
                    }
                }
            }
            ExprKind::Cmp(op, a, b) => {
                let x = self.expr(a);
                let y = self.expr(b);
                let o = match op {
                    CmpOp::Eq => "==",
                    CmpOp::Ne => "!=",
                    CmpOp::Lt => "<",
                    CmpOp::Le => "<=",
                    CmpOp::Gt => ">",
                    CmpOp::Ge => ">=",
                };
                format!("({x} {o} {y})")
            }
            ExprKind::And(a, b) => {
                let o = if dt.lanes > 1 { "&" } else { "&&" };
                format!("({} {o} {})", self.expr(a), self.expr(b))
            }
            ExprKind::Or(a, b) => {
                let o = if dt.lanes > 1 { "|" } else { "||" };
                format!("({} {o} {})", self.expr(a), self.expr(b))
            }
            ExprKind::Not(a) => format!("!{}", self.expr(a)),
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                let c = self.expr(cond);
                let t = self.expr(then);
                let o = self.expr(otherwise);
                format!("select({o}, {t}, {c})")
            }
            ExprKind::Cast(x) => {
                let from = x.dtype();
                let v = self.expr(x);
                if wgsl_type(from).ok() == wgsl_type(dt).ok() {
                    return v;
                }
                let t = self.ty(dt, span);
                if dt.is_bool() {
                    let z = self.ty(from, span);
                    format!("({v} != {z}(0))")
                } else {
                    format!("{t}({v})")
                }
            }
            ExprKind::Call { op, args } => self.call(op, args, dt, span),
            ExprKind::Load { buffer, indices } => {
                let name = self.buffer_name(buffer, span);
                let Some(idx) = indices.first() else {
                    self.fail("load without an index", span);
                    return String::new();
                };
                if idx.dtype().lanes == 1 {
                    let i = self.expr(idx);
                    return format!("{name}[{}]", strip_parens(&i));
                }
                let t = self.ty(dt, span);
                match idx.kind() {
                    ExprKind::Ramp { base, stride } => {
                        let b = self.expr(base);
                        let s = self.expr(stride);
                        let lanes: Vec<String> = (0..idx.dtype().lanes)
                            .map(|l| {
                                if l == 0 {
                                    format!("{name}[{}]", strip_parens(&b))
                                } else if stride.is_const_int(1) {
                                    format!("{name}[{b} + {l}]")
                                } else {
                                    format!("{name}[{b} + {l} * {s}]")
                                }
                            })
                            .collect();
                        format!("{t}({})", lanes.join(", "))
                    }
                    ExprKind::Broadcast(i) => {
                        let i = self.expr(i);
                        format!("{t}({name}[{}])", strip_parens(&i))
                    }
                    _ => {
                        self.fail("vector load with a non-ramp index", span);
                        String::new()
                    }
                }
            }
            ExprKind::Let { .. } => {
                self.fail(
                    "let expressions are not supported in WGSL kernels yet",
                    span,
                );
                String::new()
            }
            ExprKind::Ramp { base, stride } => {
                let b = self.expr(base);
                let s = self.expr(stride);
                let t = self.ty(dt, span);
                let lanes: Vec<String> =
                    (0..dt.lanes).map(|l| format!("{b} + {l} * {s}")).collect();
                format!("{t}({})", lanes.join(", "))
            }
            ExprKind::Broadcast(x) => {
                let v = self.expr(x);
                let t = self.ty(dt, span);
                format!("{t}({v})")
            }
        }
    }

    /// Whether an integer expression is non-negative by its shape (sums,
    /// products and quotients of non-negative loop and launch variables and
    /// constants), so `//` and `%` need no floor correction.
    fn nonneg(&self, e: &Expr) -> bool {
        match e.kind() {
            ExprKind::Int(v) => *v >= 0,
            ExprKind::Var(v) => self.nonneg_vars.contains(&v.id()),
            ExprKind::Cast(x) => x.dtype().is_integer() && self.nonneg(x),
            ExprKind::Binary(
                BinOp::Add
                | BinOp::Mul
                | BinOp::FloorDiv
                | BinOp::FloorMod
                | BinOp::Min
                | BinOp::Max,
                a,
                b,
            ) => self.nonneg(a) && self.nonneg(b),
            _ => false,
        }
    }

    fn call(&mut self, op: &Intrinsic, args: &[Expr], dt: DataType, span: Span) -> String {
        let a: Vec<String> = args.iter().map(|x| self.expr(x)).collect();
        let one = |f: &str| format!("{f}({})", a.first().cloned().unwrap_or_default());
        match op {
            Intrinsic::Exp => one("exp"),
            Intrinsic::Exp2 => one("exp2"),
            Intrinsic::Exp10 => format!("exp2({} * 3.321928094887362)", a[0]),
            Intrinsic::Log => one("log"),
            Intrinsic::Log2 => one("log2"),
            Intrinsic::Log10 => format!("(log2({}) * 0.3010299956639812)", a[0]),
            Intrinsic::Log1p => format!("log(1.0 + {})", a[0]),
            Intrinsic::Sqrt => one("sqrt"),
            Intrinsic::Rsqrt => one("inverseSqrt"),
            Intrinsic::Tanh => one("tanh"),
            Intrinsic::Sigmoid => format!("(1.0 / (1.0 + exp(-{})))", a[0]),
            Intrinsic::Fabs => one("abs"),
            Intrinsic::Pow => format!("pow({}, {})", a[0], a.get(1).cloned().unwrap_or_default()),
            Intrinsic::Floor => one("floor"),
            Intrinsic::Ceil => one("ceil"),
            Intrinsic::Round => one("round"),
            Intrinsic::Trunc => one("trunc"),
            Intrinsic::Sin => one("sin"),
            Intrinsic::Cos => one("cos"),
            Intrinsic::Tan => one("tan"),
            Intrinsic::Atan => one("atan"),
            Intrinsic::IfThenElse if a.len() == 3 => {
                format!("select({}, {}, {})", a[2], a[1], a[0])
            }
            // A branch hint: the value is the condition itself.
            Intrinsic::Other(n) if n == "likely" && a.len() == 1 => a[0].clone(),
            _ => {
                self.fail(
                    format!("T.{} has no WGSL form in Tessel yet ({dt})", op.name()),
                    span,
                );
                String::new()
            }
        }
    }
}

/// The kernel's workgroup size, checked against WebGPU's per-dimension and
/// per-workgroup limits.
fn check_workgroup_size(k: &GpuKernel, limits: &GpuLimits) -> Result<[i64; 3]> {
    let wg = [k.extent(false, 0), k.extent(false, 1), k.extent(false, 2)];
    let total: i64 = wg.iter().product();
    for a in k.launch.iter().filter(|a| !a.is_block()) {
        let max = limits.max_workgroup_size[a.dim()];
        if a.extent > max {
            return Err(CodegenError::new(
                format!(
                    "kernel {}: {} extent {} (loop {}) exceeds WebGPU's limit of {max} \
                     for that dimension; split loop {} and bind the outer part to blockIdx",
                    k.name,
                    a.tag,
                    a.extent,
                    a.loops.join(", "),
                    a.loops[0]
                ),
                a.span,
            ));
        }
    }
    if total > limits.max_invocations_per_workgroup {
        let loops: Vec<String> = k
            .launch
            .iter()
            .filter(|a| !a.is_block())
            .map(|a| format!("{} = {} (loop {})", a.tag, a.extent, a.loops.join(", ")))
            .collect();
        let span = k
            .launch
            .iter()
            .find(|a| !a.is_block())
            .map_or(Span::default(), |a| a.span);
        return Err(CodegenError::new(
            format!(
                "kernel {}: {total} invocations per workgroup ({}) exceed WebGPU's limit of \
                 {}; split a threadIdx loop and bind its outer part to blockIdx",
                k.name,
                loops.join(" × "),
                limits.max_invocations_per_workgroup
            ),
            span,
        ));
    }
    Ok(wg)
}

/// The kernel's `shared` buffers, each of constant size and together within
/// WebGPU's workgroup storage limit.
fn shared_buffers(k: &GpuKernel, limits: &GpuLimits) -> Result<Vec<Buffer>> {
    let mut shared: Vec<Buffer> = Vec::new();
    k.body.walk(&mut |s| {
        if let StmtKind::Allocate { buffer, .. } = s.kind() {
            if buffer.scope == "shared" {
                shared.push(buffer.clone());
            }
        }
    });
    let mut shared_bytes = 0i64;
    for b in &shared {
        let Some(n) = b.const_shape().and_then(|s| s.first().copied()) else {
            return Err(CodegenError::new(
                format!("shared buffer {} needs a constant size", b.name),
                b.span,
            ));
        };
        shared_bytes += n * b.dtype.bytes() as i64;
    }
    if shared_bytes > limits.max_workgroup_storage_bytes {
        let list: Vec<String> = shared
            .iter()
            .map(|b| {
                format!(
                    "{} {} B",
                    b.name,
                    b.const_shape().map_or(0, |s| s[0]) * b.dtype.bytes() as i64
                )
            })
            .collect();
        return Err(CodegenError::new(
            format!(
                "kernel {}: {shared_bytes} bytes of shared memory ({}) exceed WebGPU's limit \
                 of {} per workgroup; use smaller tiles",
                k.name,
                list.join(", "),
                limits.max_workgroup_storage_bytes
            ),
            shared.first().map_or(Span::default(), |b| b.span),
        ));
    }
    Ok(shared)
}

/// How a kernel's grid of blocks maps onto the workgroups dispatched.
struct GridLayout {
    /// Blocks per dimension (`blockIdx` extents).
    grid: [i64; 3],
    /// Workgroups dispatched per dimension.
    dispatch: [i64; 3],
    /// Whether the grid is folded into x × y because a dimension is wider
    /// than WebGPU allows; the kernel then recovers `blockIdx` from the
    /// linear workgroup index.
    fold: bool,
}

impl GridLayout {
    fn new(k: &GpuKernel, limits: &GpuLimits) -> Result<Self> {
        let grid = [k.extent(true, 0), k.extent(true, 1), k.extent(true, 2)];
        let maxd = limits.max_workgroups_per_dimension;
        let total_blocks: i64 = grid.iter().product();
        let fold = grid.iter().any(|&g| g > maxd);
        let dispatch: [i64; 3] = if fold {
            // x * y == total exactly, so no invocation is out of range.
            let dx = (1..=maxd.min(total_blocks))
                .rev()
                .find(|d| total_blocks % d == 0 && total_blocks / d <= maxd);
            match dx {
                Some(dx) => [dx, total_blocks / dx, 1],
                None => {
                    return Err(CodegenError::new(
                        format!(
                            "kernel {}: {total_blocks} workgroups cannot be laid out as x × y \
                             with both at most {maxd}; bind fewer, larger blocks",
                            k.name
                        ),
                        k.launch.first().map_or(Span::default(), |a| a.span),
                    ))
                }
            }
        } else {
            grid
        };
        Ok(GridLayout {
            grid,
            dispatch,
            fold,
        })
    }
}

fn strip_parens(s: &str) -> &str {
    if s.starts_with('(') && s.ends_with(')') {
        // Only when the outer parentheses enclose everything.
        let inner = &s[1..s.len() - 1];
        let mut depth = 0i32;
        for c in inner.chars() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth < 0 {
                        return s;
                    }
                }
                _ => {}
            }
        }
        if depth == 0 {
            return inner;
        }
    }
    s
}

fn positive_const(e: &Expr) -> bool {
    e.as_int().is_some_and(|v| v > 0)
}

/// `k` when `e` is the constant `2^k` (k ≥ 1).
fn power_of_two(e: &Expr) -> Option<u32> {
    e.as_int()
        .filter(|&v| v > 1 && (v as u64).is_power_of_two())
        .map(|v| (v as u64).trailing_zeros())
}
