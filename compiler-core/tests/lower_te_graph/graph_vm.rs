//! The graph VM on the book's models.
//!
//! The same two-layer MLP (`x @ w0.T + b0`, relu, `@ w1.T + b1`; 784 → 128 →
//! 10) appears in the course in five forms: `R.call_tir` of TensorIR
//! functions (§3.4), `R.call_dps_packed` of module PrimFuncs by name with
//! symbolic shapes (§3.4), of registered environment functions (§3.6), a
//! mixture (§3.7, §4.6), high-level operators (§7.4) and their fused graph
//! functions (§7.4). Each runs on the same random inputs and must match a
//! plain Rust reference written like the book's NumPy code.

use std::path::Path;

use compiler_core::eval::{allclose, NDArray, Rng};
use compiler_core::graph::vm::{self, ExecutableKernels, Kernels, PackedRegistry, Value, Vm};
use compiler_core::ir::IRModule;
use compiler_core::target::{ReferenceBackend, Target};
use compiler_core::tvmscript::builder::parse_script;

fn load(name: &str) -> IRModule {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/graph")
        .join(name);
    let src = std::fs::read_to_string(&path).expect("read");
    parse_script(&src)
        .unwrap_or_else(|d| panic!("{name}: {}", d.message))
        .to_module()
}

fn parse(src: &str) -> IRModule {
    parse_script(src)
        .unwrap_or_else(|d| panic!("{}", d.message))
        .to_module()
}

fn random(shape: &[usize], rng: &mut Rng) -> NDArray {
    NDArray::random(compiler_core::ir::DataType::f32(), shape, rng).expect("array")
}

/// The book's NumPy MLP, written out: float32 arithmetic, sums from 0 in order.
fn numpy_mlp(x: &NDArray, w0: &NDArray, b0: &NDArray, w1: &NDArray, b1: &NDArray) -> NDArray {
    fn linear(x: &[f32], w: &[f32], b: &[f32], n: usize, k: usize) -> Vec<f32> {
        (0..n)
            .map(|j| {
                let mut acc = 0.0f32;
                for kk in 0..k {
                    acc += x[kk] * w[j * k + kk];
                }
                acc + b[j]
            })
            .collect()
    }
    let f = |a: &NDArray| a.as_f32_slice().expect("f32").to_vec();
    let h = linear(&f(x), &f(w0), &f(b0), 128, 784);
    let h: Vec<f32> = h.into_iter().map(|v| v.max(0.0)).collect();
    let out = linear(&h, &f(w1), &f(b1), 10, 128);
    NDArray::from_f32(&[1, 10], out).expect("array")
}

struct Inputs {
    x: NDArray,
    w0: NDArray,
    b0: NDArray,
    w1: NDArray,
    b1: NDArray,
}

impl Inputs {
    fn new(seed: u64) -> Inputs {
        let mut rng = Rng::new(seed);
        Inputs {
            x: random(&[1, 784], &mut rng),
            w0: random(&[128, 784], &mut rng),
            b0: random(&[128], &mut rng),
            w1: random(&[10, 128], &mut rng),
            b1: random(&[10], &mut rng),
        }
    }
    fn all(&self) -> Vec<NDArray> {
        vec![
            self.x.clone(),
            self.w0.clone(),
            self.b0.clone(),
            self.w1.clone(),
            self.b1.clone(),
        ]
    }
    fn expected(&self) -> NDArray {
        numpy_mlp(&self.x, &self.w0, &self.b0, &self.w1, &self.b1)
    }
}

fn run_mlp(file: &str, inputs: &Inputs, packed: &PackedRegistry) -> NDArray {
    let m = load(file);
    match vm::run(&m, "main", inputs.all(), packed) {
        Ok(Value::Tensor(t)) => t,
        Ok(other) => panic!("{file}: unexpected result {other:?}"),
        Err(e) => panic!("{file}: {}", e.message),
    }
}

#[test]
fn book_mlp_with_call_tir_matches_numpy() {
    for seed in [1, 2, 3] {
        let inputs = Inputs::new(seed);
        let out = run_mlp(
            "seed001_g2b_mlp_call_tir_completed.py",
            &inputs,
            &PackedRegistry::new(),
        );
        assert_eq!(out.shape(), &[1, 10]);
        allclose(&out, &inputs.expected(), 1e-5, 1e-5).expect("MLP matches NumPy");
    }
}

#[test]
fn every_form_of_the_book_mlp_agrees() {
    let inputs = Inputs::new(7);
    let expected = inputs.expected();
    let env = PackedRegistry::with_course_env();
    for file in [
        // §3.4: call_dps_packed of the module's own PrimFuncs, symbolic shapes.
        "seed001_g1_mlp_call_dps_packed_dynamic.py",
        // §3.6: registered environment functions.
        "seed001_g4_extern_call.py",
        // §3.7 and §4.6: a PrimFunc plus environment functions.
        "seed001_g5_mixture_dynamic.py",
        "seed001_g6_mixture_static.py",
        // §7.4: high-level operators, and after the book's fusion pass.
        "derived_ch7_mlp_high_level_ops.py",
        "derived_ch7_fused_matmul_add.py",
    ] {
        let out = run_mlp(file, &inputs, &env);
        allclose(&out, &expected, 1e-5, 1e-5).unwrap_or_else(|e| panic!("{file}: {e}"));
    }
}

#[test]
fn symbolic_sizes_are_bound_from_the_arguments() {
    // The §3.4 module with symbolic m, n, k runs at other sizes too.
    let m = load("seed001_g1_mlp_call_dps_packed_dynamic.py");
    let mut rng = Rng::new(3);
    let args = vec![
        random(&[1, 6], &mut rng),
        random(&[5, 6], &mut rng),
        random(&[5], &mut rng),
        random(&[3, 5], &mut rng),
        random(&[3], &mut rng),
    ];
    let out = vm::run(&m, "main", args.clone(), &PackedRegistry::new()).expect("runs");
    let out = out.into_tensor().expect("tensor");
    assert_eq!(out.shape(), &[1, 3]);
    // The same through the registered environment functions.
    let m2 = load("seed001_g4_extern_call.py");
    let out2 = vm::run(&m2, "main", args, &PackedRegistry::with_course_env())
        .expect("runs")
        .into_tensor()
        .expect("tensor");
    allclose(&out, &out2, 1e-6, 1e-6).expect("same result");
}

#[test]
fn call_dps_packed_calls_a_registered_function() {
    let m = parse(
        r#"
from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 3), "float32")):
    with R.dataflow():
        y = R.call_dps_packed("my.scale", (x,), R.Tensor((2, 3), "float32"))
        z = R.add(y, x)
        R.output(z)
    return z
"#,
    );
    let mut packed = PackedRegistry::new();
    packed.register("my.scale", |args: &mut [NDArray]| {
        let [x, out] = args else {
            return Err("expected 2 arrays".into());
        };
        for i in 0..x.len() {
            let v = x.get_flat_f64(i).ok_or("index")?;
            out.set_flat_f64(i, 10.0 * v)?;
        }
        Ok(())
    });
    let x = NDArray::from_f32(&[2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).expect("x");
    let out = vm::run(&m, "main", vec![x], &packed)
        .expect("runs")
        .into_tensor()
        .expect("tensor");
    assert_eq!(
        out.as_f32_slice().expect("f32"),
        &[11.0, 22.0, 33.0, 44.0, 55.0, 66.0]
    );

    // An unregistered function is a clear error.
    let err = vm::run(
        &m,
        "main",
        vec![NDArray::zeros(compiler_core::ir::DataType::f32(), &[2, 3]).expect("zeros")],
        &PackedRegistry::new(),
    )
    .expect_err("my.scale is not registered");
    assert!(
        err.message.contains("no function named `my.scale`"),
        "{}",
        err.message
    );
}

#[test]
fn runtime_shape_checks_name_the_argument() {
    let m = load("seed001_g6_mixture_static.py");
    let env = PackedRegistry::with_course_env();
    let mut inputs = Inputs::new(1).all();
    inputs[0] = NDArray::zeros(compiler_core::ir::DataType::f32(), &[1, 700]).expect("zeros");
    let err = vm::run(&m, "main", inputs, &env).expect_err("wrong shape");
    assert!(
        err.message.contains("main: argument 1 (x)") && err.message.contains("[1, 700]"),
        "{}",
        err.message
    );

    // Symbolic sizes must agree across arguments: n from w0 is 128, b0 has 100.
    let m = load("seed001_g4_extern_call.py");
    let mut inputs = Inputs::new(1).all();
    inputs[2] = NDArray::zeros(compiler_core::ir::DataType::f32(), &[100]).expect("zeros");
    let err = vm::run(&m, "main", inputs, &env).expect_err("n disagrees");
    assert!(
        err.message.contains("argument 3 (b0)") && err.message.contains("`n` = 128"),
        "{}",
        err.message
    );

    // Wrong dtype and wrong number of arguments.
    let mut inputs = Inputs::new(1).all();
    inputs[0] = NDArray::zeros(compiler_core::ir::DataType::f64(), &[1, 784]).expect("zeros");
    let err = vm::run(&m, "main", inputs, &env).expect_err("dtype");
    assert!(
        err.message.contains("expected dtype float32, got float64"),
        "{}",
        err.message
    );
    let err = vm::run(&m, "main", vec![], &env).expect_err("arity");
    assert!(
        err.message.contains("takes 5 arguments, but 0 were given"),
        "{}",
        err.message
    );
}

#[test]
fn builtin_operators_run_and_agree_with_their_inferred_shapes() {
    let m = load("own_01_ops.py");
    let mut env = PackedRegistry::new();
    // env.split: the (2, 4) input as two (2, 2) halves (columns 0-1 and 2-3).
    env.register("env.split", |args: &mut [NDArray]| {
        let [x, a, b] = args else {
            return Err("expected 3 arrays".into());
        };
        for i in 0..2 {
            for j in 0..2 {
                a.set_f64(&[i, j], x.get_f64(&[i, j]).ok_or("x")?)?;
                b.set_f64(&[i, j], x.get_f64(&[i, j + 2]).ok_or("x")?)?;
            }
        }
        Ok(())
    });
    let mut rng = Rng::new(11);
    let args = vec![
        random(&[2, 3], &mut rng),
        random(&[4, 3], &mut rng),
        random(&[4], &mut rng),
        random(&[1, 3, 8, 8], &mut rng),
        random(&[4, 3, 3, 3], &mut rng),
    ];
    let out = vm::run(&m, "main", args.clone(), &env).expect("runs");
    let Value::Tuple(items) = out else {
        panic!("expected a tuple, got {out:?}")
    };
    let shapes: Vec<Vec<usize>> = items
        .iter()
        .map(|v| v.as_tensor().expect("tensor").shape().to_vec())
        .collect();
    assert_eq!(
        shapes,
        vec![
            vec![2, 4],
            vec![4, 2],
            vec![1, 4, 4, 4],
            vec![2],
            vec![2, 2],
            vec![2, 3]
        ]
    );
    // Softmax rows sum to one.
    let sm = items[0].as_tensor().expect("softmax").to_f64_vec();
    for row in sm.chunks(4) {
        let s: f64 = row.iter().sum();
        assert!((s - 1.0).abs() < 1e-5, "softmax row sums to {s}");
    }
    // The last output is a + a with a = x + x.
    let x = args[0].to_f64_vec();
    let last = items[5].as_tensor().expect("tensor").to_f64_vec();
    for (p, q) in x.iter().zip(&last) {
        assert!((4.0 * p - q).abs() < 1e-6);
    }
}

#[test]
fn conv2d_matches_a_direct_loop() {
    let m = parse(
        r#"
from tvm.script import relax as R

@R.function
def main(x: R.Tensor((1, 2, 5, 5), "float32"), w: R.Tensor((4, 1, 3, 3), "float32")):
    y = R.nn.conv2d(x, w, strides=2, padding=1, groups=2)
    return y
"#,
    );
    let mut rng = Rng::new(5);
    let x = random(&[1, 2, 5, 5], &mut rng);
    let w = random(&[4, 1, 3, 3], &mut rng);
    let y = vm::run(
        &m,
        "main",
        vec![x.clone(), w.clone()],
        &PackedRegistry::new(),
    )
    .expect("runs")
    .into_tensor()
    .expect("tensor");
    assert_eq!(y.shape(), &[1, 4, 3, 3]);
    for o in 0..4 {
        let c = o / 2; // groups = 2: output channels 0-1 read input channel 0
        for i in 0..3 {
            for j in 0..3 {
                let mut acc = 0.0f32;
                for ky in 0..3 {
                    for kx in 0..3 {
                        let (iy, ix) = ((i * 2 + ky) as isize - 1, (j * 2 + kx) as isize - 1);
                        if iy < 0 || ix < 0 || iy >= 5 || ix >= 5 {
                            continue;
                        }
                        let p = x.get_f64(&[0, c, iy as usize, ix as usize]).expect("x") as f32;
                        let q = w.get_f64(&[o, 0, ky, kx]).expect("w") as f32;
                        acc += p * q;
                    }
                }
                let got = y.get_f64(&[0, o, i, j]).expect("y") as f32;
                assert_eq!(got, acc, "y[0, {o}, {i}, {j}]");
            }
        }
    }
}

/// Kernels that record which PrimFuncs ran, around the module built by a
/// target backend (the seam the wasm and WGSL backends plug into).
struct Recording {
    inner: ExecutableKernels,
    calls: Vec<String>,
}

impl Kernels for Recording {
    fn call_prim_func(&mut self, name: &str, args: &mut [NDArray]) -> Result<(), String> {
        self.calls.push(format!("{name}/{}", args.len()));
        self.inner.call_prim_func(name, args)
    }
}

#[test]
fn prim_funcs_run_through_the_kernels_backend() {
    let m = load("seed001_g2b_mlp_call_tir_completed.py");
    let packed = PackedRegistry::new();
    let mut k = Recording {
        inner: ExecutableKernels::build(&ReferenceBackend::default(), &m, &Target::llvm())
            .expect("builds"),
        calls: Vec::new(),
    };
    let inputs = Inputs::new(2);
    let out = Vm::new(&m, &packed, &mut k)
        .call(
            "main",
            inputs.all().into_iter().map(Value::Tensor).collect(),
        )
        .expect("runs");
    assert_eq!(k.calls, vec!["linear0/4", "relu0/2", "linear1/4"]);
    allclose(
        out.as_tensor().expect("tensor"),
        &inputs.expected(),
        1e-5,
        1e-5,
    )
    .expect("same");
}
