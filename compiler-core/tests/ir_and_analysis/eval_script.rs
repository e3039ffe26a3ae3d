//! The interpreter on TVMScript text (parsed by the tvmscript builder).

use std::collections::HashMap;
use std::rc::Rc;

use compiler_core::eval::*;
use compiler_core::ir::{DataType, PrimFunc};
use compiler_core::tvmscript::builder::parse_script;

fn prim(src: &str) -> Rc<PrimFunc> {
    let module = parse_script(src)
        .unwrap_or_else(|e| panic!("parse error: {} at {:?}", e.message, e.span))
        .to_module();
    let (_, f) = module.prim_funcs().next().expect("a prim_func");
    f.clone()
}

fn checked() -> EvalOptions {
    EvalOptions {
        check_regions: true,
        ..EvalOptions::default()
    }
}

const MM_RELU_16: &str = r#"
from tvm.script import tir as T

@T.prim_func
def mm_relu(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
            C: T.Buffer((16, 16), "float32")):
    T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
    Y = T.alloc_buffer((16, 16), dtype="float32")
    for i, j, k in T.grid(16, 16, 16):
        with T.block("Y"):
            vi = T.axis.spatial(16, i)
            vj = T.axis.spatial(16, j)
            vk = T.axis.reduce(16, k)
            T.reads(A[vi, vk], B[vk, vj])
            T.writes(Y[vi, vj])
            with T.init():
                Y[vi, vj] = T.float32(0)
            Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            vj = T.axis.spatial(16, j)
            T.reads(Y[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = T.max(Y[vi, vj], T.float32(0))
"#;

#[test]
fn mm_relu_from_script() {
    let f = prim(MM_RELU_16);
    let mut args = random_inputs(&f, 5, &HashMap::new()).unwrap();
    run_prim_func(&f, &mut args, &checked()).unwrap();
    let (a, b) = (
        args[0].as_f32_slice().unwrap(),
        args[1].as_f32_slice().unwrap(),
    );
    let mut expected = vec![0f32; 256];
    for i in 0..16 {
        for j in 0..16 {
            let mut acc = 0f32;
            for k in 0..16 {
                acc += a[i * 16 + k] * b[k * 16 + j];
            }
            expected[i * 16 + j] = acc.max(0.0);
        }
    }
    assert_eq!(args[2].as_f32_slice().unwrap(), &expected[..]);
}

#[test]
fn split_reduction_with_where_from_script() {
    // Rows and the reduction both split by 4 over extent 10 (12 iterations
    // each, guarded), regions inferred by the builder.
    let f = prim(
        r#"
from tvm.script import tir as T

@T.prim_func
def rowsum(A: T.Buffer((10, 10), "float32"), S: T.Buffer((10,), "float32")):
    for i0, i1, k0, k1 in T.grid(3, 4, 3, 4):
        with T.block("S"):
            vi = T.axis.spatial(10, i0 * 4 + i1)
            vk = T.axis.reduce(10, k0 * 4 + k1)
            T.where(i0 * 4 + i1 < 10 and k0 * 4 + k1 < 10)
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + A[vi, vk]
"#,
    );
    let mut args = random_inputs(&f, 8, &HashMap::new()).unwrap();
    args[1] = NDArray::from_f32(&[10], vec![123.0; 10]).unwrap();
    run_prim_func(&f, &mut args, &checked()).unwrap();
    let a = args[0].as_f32_slice().unwrap();
    for i in 0..10 {
        let mut acc = 0f32;
        for k in 0..10 {
            acc += a[i * 10 + k];
        }
        assert_eq!(args[1].as_f32_slice().unwrap()[i], acc, "row {i}");
    }
}

#[test]
fn symbolic_shapes_from_match_buffer() {
    let f = prim(
        r#"
from tvm.script import tir as T

@T.prim_func
def add_one(a: T.handle, b: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        with T.block("B"):
            vi = T.axis.spatial(n, i)
            B[vi] = A[vi] + T.float32(1)
"#,
    );
    let mut args = random_inputs(&f, 1, &HashMap::from([("n".to_string(), 9)])).unwrap();
    assert_eq!(args[0].shape(), &[9]);
    run_prim_func(&f, &mut args, &checked()).unwrap();
    let (a, b) = (args[0].to_f64_vec(), args[1].to_f64_vec());
    for i in 0..9 {
        assert_eq!(b[i], (a[i] as f32 + 1.0) as f64);
    }
    let mut mismatched = vec![
        NDArray::zeros(DataType::f32(), &[9]).unwrap(),
        NDArray::zeros(DataType::f32(), &[4]).unwrap(),
    ];
    let e = run_prim_func(&f, &mut mismatched, &EvalOptions::default()).unwrap_err();
    assert_eq!(e.message, "argument B, dimension 0: expected 9, got 4");
}

#[test]
fn float16_gelu_from_script() {
    // 0.5 * x * (1 + erf(x / sqrt(2))) computed in float32, stored as float16.
    let f = prim(
        r#"
from tvm.script import tir as T

@T.prim_func
def gelu(A: T.Buffer((8,), "float16"), B: T.Buffer((8,), "float16")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            x = T.Cast("float32", A[vi])
            B[vi] = T.Cast("float16", T.float32(0.5) * x * (T.float32(1) + T.erf(x * T.float32(0.70710678118654757))))
"#,
    );
    let xs = [-3.0, -1.0, -0.5, 0.0, 0.1, 0.5, 1.0, 3.0];
    let mut args = vec![
        NDArray::from_f64_as(DataType::float(16), &[8], &xs).unwrap(),
        NDArray::zeros(DataType::float(16), &[8]).unwrap(),
    ];
    run_prim_func(&f, &mut args, &checked()).unwrap();
    for (i, &x0) in xs.iter().enumerate() {
        let x = round_to_f16(x0) as f32;
        let e = erf((x * std::f32::consts::FRAC_1_SQRT_2) as f64) as f32;
        let want = round_to_f16((0.5f32 * x * (1.0 + e)) as f64);
        assert_eq!(args[1].get_f64(&[i]), Some(want), "x = {x0}");
    }
}

#[test]
fn int32_matmul_result_prints_like_numpy() {
    let f = prim(
        r#"
from tvm.script import tir as T

@T.prim_func
def mm(A: T.Buffer((2, 3), "int32"), B: T.Buffer((3, 2), "int32"), C: T.Buffer((2, 2), "int32")):
    for i, j, k in T.grid(2, 2, 3):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#,
    );
    let i32_ = DataType::i32();
    let mut args = vec![
        NDArray::from_i64(i32_, &[2, 3], &[1, 2, 3, 4, 5, 6]).unwrap(),
        NDArray::from_i64(i32_, &[3, 2], &[7, 8, 9, 10, 11, -120]).unwrap(),
        NDArray::zeros(i32_, &[2, 2]).unwrap(),
    ];
    run_prim_func(&f, &mut args, &checked()).unwrap();
    assert_eq!(args[2].to_string(), "[[  58 -332]\n [ 139 -638]]");
}

#[test]
fn out_of_bounds_error_points_at_the_source() {
    let src = r#"
from tvm.script import tir as T

@T.prim_func
def shift(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi + 1]
"#;
    let f = prim(src);
    let mut args = random_inputs(&f, 1, &HashMap::new()).unwrap();
    let e = run_prim_func(&f, &mut args, &EvalOptions::default()).unwrap_err();
    assert_eq!(
        e.message,
        "load from A[8] is out of bounds: buffer A has shape [8]"
    );
    assert_eq!(e.span.slice(src), "A[vi + 1]");
}
