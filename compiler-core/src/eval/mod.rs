//! The reference interpreter (in progress): exact scalar semantics and host arrays.

mod format;
mod ndarray;
mod rng;
mod scalar;

pub use ndarray::{allclose, Checksum, NDArray};
pub use rng::Rng;
pub use scalar::{erf, f16_bits_to_f64, f64_to_f16_bits, round_to_f16};
