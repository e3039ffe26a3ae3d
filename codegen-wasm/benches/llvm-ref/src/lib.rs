//! The benchmark's matmul loop nests (N = 1024, float32, row-major), in the
//! Tessel calling convention: `fn(A, B, C)` with byte addresses in an
//! imported memory. Each kernel forwards to a function taking slices, so
//! LLVM knows the buffers do not alias — what TVM's `tir.noalias` says.
//!
//! The `*_par` kernels run the outer loop the schedules parallelize
//! through Tessel's protocol: they call the imported
//! `tessel.parallel_for(task, begin, end, closure)` and the host runs the
//! exported `__task_*` bodies over sub-ranges on its threads (the
//! benchmark marks this module's memory import shared). The closure record
//! (the three addresses) is a static, so task bodies need no stack.
#![no_std]

/// The matrix size: 1024, or 256 for `cargo xtask bench --quick`.
#[cfg(not(feature = "n256"))]
const N: usize = 1024;
#[cfg(feature = "n256")]
const N: usize = 256;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    core::arch::wasm32::unreachable()
}

unsafe fn slices<'a>(a: *const f32, b: *const f32, c: *mut f32) -> (&'a [f32], &'a [f32], &'a mut [f32]) {
    (
        core::slice::from_raw_parts(a, N * N),
        core::slice::from_raw_parts(b, N * N),
        core::slice::from_raw_parts_mut(c, N * N),
    )
}

/// (a) no schedule: `for i, j, k` with the init at `k == 0`.
#[inline(never)]
fn naive(a: &[f32], b: &[f32], c: &mut [f32]) {
    unsafe {
        for i in 0..N {
            for j in 0..N {
                for k in 0..N {
                    if k == 0 {
                        *c.get_unchecked_mut(i * N + j) = 0.0;
                    }
                    *c.get_unchecked_mut(i * N + j) +=
                        *a.get_unchecked(i * N + k) * *b.get_unchecked(k * N + j);
                }
            }
        }
    }
}

/// (b) the book's blocking: `for yo, xo, k, yi, xi` (32 × 32 blocks),
/// rows of blocks `yo` in `[begin, end)`.
#[inline(never)]
fn blocked(a: &[f32], b: &[f32], c: &mut [f32], begin: usize, end: usize) {
    unsafe {
        for yo in begin..end {
            for xo in 0..N / 32 {
                for k in 0..N {
                    for yi in 0..32 {
                        for xi in 0..32 {
                            let (i, j) = (yo * 32 + yi, xo * 32 + xi);
                            if k == 0 {
                                *c.get_unchecked_mut(i * N + j) = 0.0;
                            }
                            *c.get_unchecked_mut(i * N + j) +=
                                *a.get_unchecked(i * N + k) * *b.get_unchecked(k * N + j);
                        }
                    }
                }
            }
        }
    }
}

include!("best.rs");

#[no_mangle]
pub unsafe extern "C" fn mm_naive(a: *const f32, b: *const f32, c: *mut f32) {
    let (a, b, c) = slices(a, b, c);
    naive(a, b, c)
}

#[no_mangle]
pub unsafe extern "C" fn mm_blocked(a: *const f32, b: *const f32, c: *mut f32) {
    let (a, b, c) = slices(a, b, c);
    blocked(a, b, c, 0, N / 32)
}

#[no_mangle]
pub unsafe extern "C" fn mm_best(a: *const f32, b: *const f32, c: *mut f32) {
    let (a, b, c) = slices(a, b, c);
    best(a, b, c, 0, N / NR)
}

#[link(wasm_import_module = "tessel")]
extern "C" {
    fn parallel_for(task: i32, begin: i64, end: i64, closure: *const Args);
}

/// The closure record of a parallel launch: A, B, C.
#[repr(C)]
pub struct Args {
    a: *const f32,
    b: *const f32,
    c: *mut f32,
}

static mut ARGS: Args = Args {
    a: core::ptr::null(),
    b: core::ptr::null(),
    c: core::ptr::null_mut(),
};

/// Task numbers, as the host's task list orders them.
const TASK_BLOCKED: i32 = 0;
const TASK_BEST: i32 = 1;

unsafe fn launch(task: i32, a: *const f32, b: *const f32, c: *mut f32, outer: usize) {
    let args = &raw mut ARGS;
    (*args).a = a;
    (*args).b = b;
    (*args).c = c;
    parallel_for(task, 0, outer as i64, args);
}

#[no_mangle]
pub unsafe extern "C" fn mm_blocked_par(a: *const f32, b: *const f32, c: *mut f32) {
    launch(TASK_BLOCKED, a, b, c, N / 32)
}

#[no_mangle]
pub unsafe extern "C" fn mm_best_par(a: *const f32, b: *const f32, c: *mut f32) {
    launch(TASK_BEST, a, b, c, N / NR)
}

#[no_mangle]
pub unsafe extern "C" fn __task_mm_blocked(begin: i32, end: i32, args: *const Args) {
    let (a, b, c) = slices((*args).a, (*args).b, (*args).c);
    blocked(a, b, c, begin as usize, end as usize)
}

#[no_mangle]
pub unsafe extern "C" fn __task_mm_best(begin: i32, end: i32, args: *const Args) {
    let (a, b, c) = slices((*args).a, (*args).b, (*args).c);
    best(a, b, c, begin as usize, end as usize)
}
