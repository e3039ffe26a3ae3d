//! `WgslLaunch`: what the playground's script worker posts to the worker that
//! owns the WebGPU device. It must carry the kernels exactly as built, say
//! which parameters are buffers, lay out the uniform from the arguments as
//! the shaders read it, and survive JSON unchanged.

use codegen_wgsl::launch::{UniformSlot, WgslLaunch};
use codegen_wgsl::{build_func, GpuLimits};
use compiler_core::eval::NDArray;
use compiler_core::ir::DataType;

const SCALE: &str = r#"
@T.prim_func
def scale(a: T.handle, b: T.handle, alpha: T.float32):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for t in T.thread_binding(4, thread="threadIdx.x"):
        for j in range((n + 3) // 4):
            with T.block("B"):
                vi = T.axis.spatial(n, j * 4 + t)
                T.where(j * 4 + t < n)
                B[vi] = A[vi] * alpha
"#;

#[test]
fn a_launch_carries_the_kernels_buffers_and_uniform_of_the_build() {
    let module = compiler_core::tvmscript::builder::parse_script(SCALE)
        .unwrap_or_else(|d| panic!("{}", d.message))
        .to_module();
    let func = module.get_prim("scale").expect("scale");
    let built = build_func("scale", func, &GpuLimits::default()).unwrap_or_else(|e| panic!("{e}"));
    let launch = built.launch();
    assert_eq!(launch.name, "scale");
    assert_eq!(launch.kernels, built.kernels);
    assert_eq!(launch.buffer_params, vec![true, true, false]);
    assert!(
        launch.uniform.contains(&UniformSlot::Float { param: 2 }),
        "{:?}",
        launch.uniform
    );
    assert!(
        launch
            .uniform
            .iter()
            .any(|s| matches!(s, UniformSlot::Shape { dim: 0, .. })),
        "the size `n` comes from an argument's shape: {:?}",
        launch.uniform
    );

    // The uniform for 6 elements and alpha 2.5: each slot's 4 bytes.
    let a = NDArray::zeros(DataType::f32(), &[6]).expect("array");
    let b = NDArray::zeros(DataType::f32(), &[6]).expect("array");
    let alpha = NDArray::scalar_f64(DataType::f32(), 2.5).expect("scalar");
    let bytes = launch.uniform_bytes(&[a, b, alpha]);
    assert_eq!(bytes.len() % 16, 0);
    for (i, slot) in launch.uniform.iter().enumerate() {
        let word: [u8; 4] = bytes[4 * i..4 * i + 4].try_into().expect("4 bytes");
        match slot {
            UniformSlot::Float { .. } => assert_eq!(f32::from_le_bytes(word), 2.5),
            UniformSlot::Shape { .. } => assert_eq!(i32::from_le_bytes(word), 6),
            other => panic!("unexpected slot {other:?}"),
        }
    }

    let json = serde_json::to_string(&launch).expect("serialises");
    let back: WgslLaunch = serde_json::from_str(&json).expect("reads back");
    assert_eq!(back, launch);
}
