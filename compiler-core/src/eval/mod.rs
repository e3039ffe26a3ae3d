//! The reference interpreter (in progress): exact scalar semantics first.

mod rng;
mod scalar;

pub use rng::Rng;
pub use scalar::{erf, f16_bits_to_f64, f64_to_f16_bits, round_to_f16};
