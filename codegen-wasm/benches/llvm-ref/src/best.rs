/// (c) the hand schedule: `for jo, ko, io, ki, ii, ji` with MR × NR
/// register tiles (ii, ji unrolled / vectorised by LLVM) and KC-deep
/// k-blocks; C is zeroed first (decompose_reduction); column blocks `jo` in
/// `[begin, end)` (the parallel loop).
const MR: usize = 4;
const NR: usize = 16;
const KC: usize = 256;

#[inline(never)]
fn best(a: &[f32], b: &[f32], c: &mut [f32], begin: usize, end: usize) {
    unsafe {
        for jo in begin..end {
            for i in 0..N {
                for ji in 0..NR {
                    *c.get_unchecked_mut(i * N + jo * NR + ji) = 0.0;
                }
            }
            for ko in 0..N / KC {
                for io in 0..N / MR {
                    for ki in 0..KC {
                        let k = ko * KC + ki;
                        for ii in 0..MR {
                            let i = io * MR + ii;
                            for ji in 0..NR {
                                let j = jo * NR + ji;
                                *c.get_unchecked_mut(i * N + j) +=
                                    *a.get_unchecked(i * N + k) * *b.get_unchecked(k * N + j);
                            }
                        }
                    }
                }
            }
        }
    }
}
