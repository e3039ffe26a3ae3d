//! NDArray: construction, access, comparison, and NumPy-style printing.
//! Expected strings were produced by NumPy 2.4 (`str(arr)`).

use compiler_core::eval::{allclose, NDArray, Rng};
use compiler_core::ir::DataType;

fn f32a(shape: &[usize], data: &[f32]) -> NDArray {
    NDArray::from_f32(shape, data.to_vec()).unwrap()
}

#[test]
fn display_2d_float32_like_numpy() {
    let a = f32a(&[2, 3], &[1.0, 2.5, -3.0, 4.0, 5.0, 6.0]);
    assert_eq!(a.to_string(), "[[ 1.   2.5 -3. ]\n [ 4.   5.   6. ]]");
    let b = f32a(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    assert_eq!(b.to_string(), "[[1. 2.]\n [3. 4.]]");
    let z = NDArray::zeros(DataType::f32(), &[2, 2]).unwrap();
    assert_eq!(z.to_string(), "[[0. 0.]\n [0. 0.]]");
    let r: Vec<f32> = (0..12).map(|i| (i as f64 * 0.37 - 2.0) as f32).collect();
    assert_eq!(
        f32a(&[3, 4], &r).to_string(),
        "[[-2.   -1.63 -1.26 -0.89]\n [-0.52 -0.15  0.22  0.59]\n [ 0.96  1.33  1.7   2.07]]"
    );
}

#[test]
fn display_shortest_digits_per_dtype() {
    assert_eq!(f32a(&[3], &[0.1, 0.2, 0.3]).to_string(), "[0.1 0.2 0.3]");
    let f64a = NDArray::from_f64(&[3], vec![0.1, 0.2, 0.1 + 0.2]).unwrap();
    assert_eq!(f64a.to_string(), "[0.1 0.2 0.3]");
    let h = NDArray::from_f64_as(DataType::float(16), &[3], &[0.1, 0.2, 1.0 / 3.0]).unwrap();
    assert_eq!(h.to_string(), "[0.1    0.2    0.3333]");
    let p = NDArray::from_f64(&[2], vec![0.123456789, 1.0]).unwrap();
    assert_eq!(p.to_string(), "[0.12345679 1.        ]");
    let nz = NDArray::from_f64(&[2], vec![-0.0, 1.0]).unwrap();
    assert_eq!(nz.to_string(), "[-0.  1.]");
}

#[test]
fn display_scientific_and_nonfinite() {
    assert_eq!(
        f32a(&[3], &[1e-5, 1.5, 1000.0]).to_string(),
        "[1.0e-05 1.5e+00 1.0e+03]"
    );
    let big = NDArray::from_f64(&[2], vec![1e10, 1.0]).unwrap();
    assert_eq!(big.to_string(), "[1.e+10 1.e+00]");
    let neg = NDArray::from_f64(&[3], vec![-1e-7, 2.0, 3e8]).unwrap();
    assert_eq!(neg.to_string(), "[-1.e-07  2.e+00  3.e+08]");
    let nan = f32a(&[3], &[f32::NAN, 1.5, f32::NEG_INFINITY]);
    assert_eq!(nan.to_string(), "[ nan  1.5 -inf]");
}

#[test]
fn display_ints_bools_and_nesting() {
    let i = NDArray::from_i64(DataType::i32(), &[2, 3], &[1, -20, 300, 4, 5, 6]).unwrap();
    assert_eq!(i.to_string(), "[[  1 -20 300]\n [  4   5   6]]");
    let b = NDArray::from_i64(DataType::bool(), &[3], &[1, 0, 1]).unwrap();
    assert_eq!(b.to_string(), "[ True False  True]");
    let u = NDArray::from_i64(DataType::uint(8), &[2], &[0, 255]).unwrap();
    assert_eq!(u.to_string(), "[  0 255]");
    let t = NDArray::from_i64(DataType::i64(), &[2, 2, 3], &(0..12).collect::<Vec<_>>()).unwrap();
    assert_eq!(
        t.to_string(),
        "[[[ 0  1  2]\n  [ 3  4  5]]\n\n [[ 6  7  8]\n  [ 9 10 11]]]"
    );
    assert_eq!(
        NDArray::scalar_f64(DataType::f32(), 2.5)
            .unwrap()
            .to_string(),
        "2.5"
    );
    assert_eq!(
        NDArray::scalar_i64(DataType::i32(), 7).unwrap().to_string(),
        "7"
    );
}

#[test]
fn display_wraps_and_summarises() {
    let a = f32a(&[30], &(0..30).map(|i| i as f32).collect::<Vec<_>>());
    assert_eq!(
        a.to_string(),
        "[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. 16. 17.\n 18. 19. 20. 21. 22. 23. 24. 25. 26. 27. 28. 29.]"
    );
    let s = NDArray::from_i64(DataType::i32(), &[2000], &(0..2000).collect::<Vec<_>>()).unwrap();
    assert_eq!(s.to_string(), "[   0    1    2 ... 1997 1998 1999]");
    let m: Vec<f32> = (0..128 * 128).map(|i| i as f32 / 7.0).collect();
    let expected = "\
[[0.0000000e+00 1.4285715e-01 2.8571430e-01 ... 1.7857143e+01
  1.8000000e+01 1.8142857e+01]
 [1.8285715e+01 1.8428572e+01 1.8571428e+01 ... 3.6142857e+01
  3.6285713e+01 3.6428570e+01]
 [3.6571430e+01 3.6714287e+01 3.6857143e+01 ... 5.4428570e+01
  5.4571430e+01 5.4714287e+01]
 ...
 [2.2857144e+03 2.2858572e+03 2.2860000e+03 ... 2.3035715e+03
  2.3037144e+03 2.3038572e+03]
 [2.3040000e+03 2.3041428e+03 2.3042856e+03 ... 2.3218572e+03
  2.3220000e+03 2.3221428e+03]
 [2.3222856e+03 2.3224285e+03 2.3225715e+03 ... 2.3401428e+03
  2.3402856e+03 2.3404285e+03]]";
    assert_eq!(f32a(&[128, 128], &m).to_string(), expected);
}

#[test]
fn get_set_and_conversions() {
    let mut a = NDArray::zeros(DataType::int(8), &[2, 2]).unwrap();
    a.set_i64(&[1, 0], 300).unwrap(); // wraps like a cast
    assert_eq!(a.get_i64(&[1, 0]), Some(44));
    assert!(a.set_i64(&[2, 0], 1).is_err());
    assert_eq!(a.get_f64(&[0, 5]), None);
    let mut h = NDArray::zeros(DataType::float(16), &[1]).unwrap();
    h.set_f64(&[0], 0.1).unwrap();
    assert_eq!(h.get_f64(&[0]), Some(0.0999755859375));
    assert!(NDArray::from_f32(&[2, 2], vec![1.0]).is_err());
    assert!(NDArray::zeros(DataType::handle(), &[1]).is_err());
    assert!(NDArray::zeros(DataType::f32().with_lanes(4), &[1]).is_err());
    assert_eq!(a.to_i64_vec(), vec![0, 0, 44, 0]);
}

#[test]
fn bytes_round_trip() {
    let mut rng = Rng::new(9);
    for dt in [
        "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint32",
        "bool",
    ] {
        let dt = DataType::parse(dt).unwrap();
        let a = NDArray::random(dt, &[3, 5], &mut rng).unwrap();
        let bytes = a.to_le_bytes();
        assert_eq!(bytes.len(), 15 * dt.bytes());
        let b = NDArray::from_le_bytes(dt, &[3, 5], &bytes).unwrap();
        assert_eq!(a, b, "{dt}");
    }
}

#[test]
fn random_is_deterministic_and_in_range() {
    let a = NDArray::random(DataType::f32(), &[64], &mut Rng::new(5)).unwrap();
    let b = NDArray::random(DataType::f32(), &[64], &mut Rng::new(5)).unwrap();
    assert_eq!(a, b);
    assert!(a.to_f64_vec().iter().all(|x| (-1.0..1.0).contains(x)));
    let i = NDArray::random(DataType::i32(), &[64], &mut Rng::new(5)).unwrap();
    assert!(i.to_i64_vec().iter().all(|x| (-8..8).contains(x)));
    let u = NDArray::random(DataType::uint(8), &[64], &mut Rng::new(5)).unwrap();
    assert!(u.to_i64_vec().iter().all(|x| (0..16).contains(x)));
}

#[test]
fn allclose_reports_first_mismatch() {
    let a = f32a(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let mut b = a.clone();
    assert!(allclose(&a, &b, 1e-5, 1e-8).is_ok());
    b.set_f64(&[1, 0], 3.1).unwrap();
    b.set_f64(&[1, 1], 4.5).unwrap();
    let e = allclose(&a, &b, 1e-5, 1e-8).unwrap_err().to_string();
    assert!(e.contains("[1, 0]"), "{e}");
    assert!(e.contains("2 of 4 elements differ"), "{e}");
    assert!(allclose(&a, &b, 0.0, 0.6).is_ok());
    let c = f32a(&[4], &[1.0, 2.0, 3.0, 4.0]);
    assert!(allclose(&a, &c, 1.0, 1.0)
        .unwrap_err()
        .to_string()
        .contains("shape"));
    let n1 = f32a(&[1], &[f32::NAN]);
    assert!(allclose(&n1, &n1, 0.0, 0.0).is_ok());
    let cs = a.checksum();
    assert_eq!((cs.sum, cs.sum_sq), (10.0, 30.0));
}
