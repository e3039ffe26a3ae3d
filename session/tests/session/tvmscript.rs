//! The TVMScript helpers the CLI goes through: parse, check, apply
//! schedule text.

use tessel_session::tvmscript::{check, parse};
use tessel_session::{apply_schedule, ApplyScheduleError};

use super::{at, MM};

#[test]
fn parse_check_and_schedule() {
    let parsed = parse(MM).expect("mm_relu parses");
    assert!(check(&parsed).iter().all(|d| !d.is_error()));
    let text = "b = sch.get_block(\"Y\", \"mm_relu\")\ni, j, k = sch.get_loops(b)\nsch.split(j, factors=[None, 4])\n";
    let sch = apply_schedule(parsed.to_module(), text).expect("the schedule applies");
    assert_eq!(sch.trace().instructions.len(), 3);
    assert_eq!(sch.func_name(), "mm_relu");
}

#[test]
fn a_failing_call_is_spanned_in_the_schedule_text() {
    let parsed = parse(MM).unwrap();
    let text = "\nsch.get_block(\"nope\")\n";
    match apply_schedule(parsed.to_module(), text) {
        Err(ApplyScheduleError::Schedule(d)) => assert_eq!(at(text, &d), "sch.get_block(\"nope\")"),
        other => panic!("{:?}", other.map(|_| ())),
    }
}
