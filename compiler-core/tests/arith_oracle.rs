//! Differential tables: expressions and what TVM 0.27's `Analyzer.simplify`
//! prints for them (generated with the oracle, variables as in
//! `Env::standard()`), checked against our simplifier.

mod arith_util;

use arith_util::Env;

fn check_table(table: &str) -> Vec<String> {
    let env = Env::standard();
    let mut bad = Vec::new();
    for line in table.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
        let (input, expected) = line.split_once('\t').expect("tab-separated");
        let got = env.simplify_str(input);
        if got != expected {
            bad.push(format!("{input}\n    tvm: {expected}\n    got: {got}"));
        }
    }
    bad
}

#[test]
fn random_cases_match_tvm() {
    let table = std::fs::read_to_string(std::env::var("CASES").as_deref().unwrap_or("/tmp/orc/cases.txt")).unwrap();
    let bad = check_table(&table);
    let total = table.lines().count();
    for b in &bad {
        println!("{b}");
    }
    println!("{} / {} mismatches", bad.len(), total);
    assert!(bad.is_empty());
}
