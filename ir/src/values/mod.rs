//! Tensor values: [`NDArray`] (what constants, interpreters and backends
//! hold), element arithmetic with exact rounding ([`scalar`]), the seeded
//! random source for inputs ([`rng`]), and NumPy-style printing ([`format`]).

pub mod format;
pub mod ndarray;
pub mod rng;
pub mod scalar;

pub use ndarray::{allclose, Checksum, NDArray, NDArrayError};
pub use rng::Rng;
pub use scalar::{erf, f16_bits_to_f64, f64_to_f16_bits, round_to_f16};
