//! Structural equality on real programs, against TVM 0.27's answers.
//!
//! - Every function of `tests/data/seeds_tvm` (TVM's own printing of the
//!   seeds) is compared with every other; the classes of equal functions
//!   must be exactly the ones `tvm.ir.assert_structural_equal` finds on the
//!   same files (computed with TVM 0.27 and written down below).
//! - Every seed equals TVM's printing of it, once the `noalias` attribute is
//!   set aside (the course spells it `tir.noalias`, TVM 0.27 `tirx.noalias`).
//!
//! The data comes from the oracle work; while it is absent the tests say so.

use std::path::{Path, PathBuf};

use compiler_core::analysis::structural_equal::{
    assert_structural_equal, prim_func_equal, EqualOptions,
};
use compiler_core::ir::{BaseFunc, IRModule, PrimFunc};
use compiler_core::tvmscript::builder::parse_script;
use tessel_test_support::expect;

fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn py_files(d: &Path) -> Option<Vec<PathBuf>> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(d)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    v.sort();
    Some(v)
}

fn stem(p: &Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

#[test]
fn equality_classes_of_tvm_printed_seeds_match_tvm() {
    let Some(files) = py_files(&dir("seeds_tvm")) else {
        eprintln!("tests/data/seeds_tvm is not there yet: nothing to check");
        return;
    };
    let mut funcs: Vec<(String, PrimFunc)> = Vec::new();
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap();
        // (TVM cannot load seed001_11 either: its printing declares `TypeVar`s.)
        let Ok(script) = parse_script(&src) else {
            continue;
        };
        for (name, f) in script.to_module().prim_funcs() {
            funcs.push((format!("{}.{name}", stem(path)), (**f).clone()));
        }
    }
    let mut classes: Vec<Vec<usize>> = Vec::new();
    for (k, (_, f)) in funcs.iter().enumerate() {
        match classes
            .iter_mut()
            .find(|c| prim_func_equal(&funcs[c[0]].1, f).is_ok())
        {
            Some(c) => c.push(k),
            None => classes.push(vec![k]),
        }
    }
    let mut out = format!("{} functions\n", funcs.len());
    for c in classes.iter().filter(|c| c.len() > 1) {
        let names: Vec<&str> = c.iter().map(|&k| funcs[k].0.as_str()).collect();
        out.push_str(&names.join(" = "));
        out.push('\n');
    }
    // TVM 0.27 on the same 30 functions (tvm.ir.assert_structural_equal):
    expect![[r#"
        30 functions
        seed000_01_vecadd.main = seed000_02_vecadd_printed.main
        seed001_02_mm_relu.mm_relu = seed001_04_mm_relu_axis_remap_sugar.mm_relu
        seed002_01_vecadd_handles.main = seed002_02_vecadd_printed.main = seed002_03_te_printed.main
        seed004_01_mm_relu.mm_relu = seed004_02_mm_relu_axis_remap_sugar.mm_relu
    "#]]
    .assert_eq(&out);
}

fn without_noalias(m: &IRModule) -> IRModule {
    let mut out = IRModule::new();
    for (name, f) in m.prim_funcs() {
        let mut g = (**f).clone();
        g.attrs.remove("tir.noalias");
        g.attrs.remove("tirx.noalias");
        out.insert(name, BaseFunc::Prim(g.into()));
    }
    out
}

#[test]
fn seeds_equal_their_tvm_printing() {
    let (Some(seeds), Some(_)) = (py_files(&dir("seeds")), py_files(&dir("seeds_tvm"))) else {
        eprintln!("tests/data/seeds or seeds_tvm is not there yet: nothing to check");
        return;
    };
    let mut compared = 0;
    let mut failures = Vec::new();
    for path in &seeds {
        let printed = dir("seeds_tvm").join(path.file_name().unwrap());
        let (Ok(a), Ok(b)) = (
            std::fs::read_to_string(path),
            std::fs::read_to_string(&printed),
        ) else {
            continue;
        };
        let (Ok(a), Ok(b)) = (parse_script(&a), parse_script(&b)) else {
            continue;
        };
        let (a, b) = (
            without_noalias(&a.to_module()),
            without_noalias(&b.to_module()),
        );
        compared += 1;
        let opts = EqualOptions::default();
        if let Err(m) = assert_structural_equal(&a, &b, opts) {
            failures.push(format!("{}: {m}", stem(path)));
        }
    }
    assert!(compared >= 20, "only {compared} seeds compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
