#!/usr/bin/env python3
"""Replays Apache TVM's own schedule unit tests through TVM 0.27 and `tessel run`.

For every zero-argument `test_*` function in TVM's
`tests/python/s_tir/schedule/test_tir_schedule_<family>.py` files (for the
primitive families Tessel implements), the test runs once under TVM 0.27
(its pytest) and once under `tessel run` (the test file's source with a
call of the test appended), and the two outcomes are compared:

* agree        both pass
* both refuse  both fail (the test expects behaviour neither gives)
* disagree     one passes, the other fails for a schedule reason
               (a refusal, a structural mismatch, an accepted illegal request)
* unsupported  Tessel stops on Python or TVM API its interpreter lacks, or
               the test needs pytest (parameters, fixtures, decorators)

TVM's test files are read from a directory given on the command line and are
never copied into this repository. Tessel has no `pytest`; the only stand-in
is `pytest.raises`, a context that fails unless the expected exception is
raised (see PYTEST_SHIM), so no failure is hidden.

Usage:
    tvm_test_replay.py --tests DIR --tessel target/release/tessel \
        --json /tmp/replay.json --summary tools/tvm_oracle/tvm_test_replay_summary.md \
        --revision "apache/tvm <sha> (<date>)"
"""

import argparse
import ast
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

# Test file stem (after `test_tir_schedule_`) -> primitive family label.
FAMILIES = {
    "split_fuse": "split / fuse",
    "reorder": "reorder",
    "compute_at": "compute_at / reverse_compute_at",
    "compute_inline": "compute_inline / reverse_compute_inline",
    "cache_read_write": "cache_read / cache_write / cache_inplace",
    "rfactor": "rfactor",
    "reduction": "decompose_reduction",
    "blockize": "blockize",
    "tensorize": "tensorize",
    "for_kind": "parallel / vectorize / unroll / bind",
    "transform_layout": "transform_layout / transform_block_layout",
    "set_scope": "set_scope",
    "storage_align": "storage_align",
    "sampling": "sampling",
    "reindex": "reindex",
    "merge": "merge",
    "reorder_block_iter_var": "reorder_block_iter_var",
    "utilities": "get_block / annotate / utilities",
}

TVM_PYTHON = os.path.expanduser("~/.cache/tessel/tvm-venv/bin/python")

# The one pytest feature the tests need when run without pytest: a context
# that passes only if the expected exception is raised inside it.
PYTEST_SHIM = '''
class _ReplayRaises:
    def __init__(self, expected, match=None):
        self.expected = expected
    def __enter__(self):
        return self
    def __exit__(self, etype, evalue, tb):
        if etype is None:
            raise AssertionError("DID NOT RAISE " + str(self.expected))
        return issubclass(etype, self.expected)

class pytest:
    @staticmethod
    def raises(expected, match=None):
        return _ReplayRaises(expected, match)
'''

PASS_MARK = "__TVM_TEST_REPLAY_PASS__"

# Error kinds that mean Tessel's interpreter lacks a Python or TVM API (the
# test never reached the schedule question it asks).
UNSUPPORTED_PATTERNS = [
    r"\bImportError\b",
    r"\bModuleNotFoundError\b",
    r"\bAttributeError\b",
    r"\bNameError\b",
    r"\bNotImplementedError\b",
    r"\bSyntaxError\b",
    r"not supported",
    r"unsupported",
    r"has no attribute",
    r"no module named",
    r"cannot import",
    r"unknown schedule primitive",
    r"is not defined",
    r"step budget",
    r"DiagnosticError: error: unknown",
    r"TypeError: .*(argument|keyword)",
]


def zero_arg_tests(source):
    """(name, runnable) for each top-level `test_*` function; runnable is
    False for tests that take arguments (pytest parameters or fixtures)."""
    tree = ast.parse(source)
    out = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            a = node.args
            takes_args = bool(a.args or a.vararg or a.kwonlyargs or a.kwarg)
            out.append((node.name, not (takes_args or pytest_decorated(node))))
    return out


def pytest_decorated(node):
    """Decorated by pytest or tvm.testing (parametrize, skip, fixture …)."""
    return any(ast.unparse(d).startswith(("pytest.", "tvm.testing."))
               for d in node.decorator_list)


def is_pytest_machinery(node):
    """Module-level pytest machinery Tessel cannot run and the zero-argument
    tests do not use: pytest-decorated functions (parametrized, skipped,
    fixtures)
    and `x = tvm.testing.parameter(...)` / `fixture(...)` assignments."""
    if isinstance(node, ast.FunctionDef) and pytest_decorated(node):
        return True
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
        callee = ast.unparse(node.value.func)
        return callee.startswith(("tvm.testing.", "pytest."))
    return False


def defined_names(node):
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return set()


def used_names(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def tessel_source(source, test):
    """The test file as Tessel runs `test`: no `import pytest` (PYTEST_SHIM
    instead), no `if __name__ == "__main__":` block, no pytest machinery, and
    of the module-level definitions only those `test` reaches (so a program
    elsewhere in the file that Tessel cannot parse does not stop this test).
    Imports and module-level statements that define nothing are kept."""
    tree = ast.parse(source)
    body = []
    for node in tree.body:
        if isinstance(node, ast.Import) and any(n.name == "pytest" for n in node.names):
            continue
        if isinstance(node, ast.If) and "__name__" in ast.unparse(node.test):
            continue
        if is_pytest_machinery(node):
            continue
        body.append(node)
    defs = [(node, defined_names(node)) for node in body]
    needed = {test}
    for node, names in defs:
        if not names and not isinstance(node, (ast.Import, ast.ImportFrom)):
            needed |= used_names(node)
    changed = True
    while changed:
        changed = False
        for node, names in defs:
            if names & needed and not used_names(node) <= needed:
                needed |= used_names(node)
                changed = True
    tree.body = [node for node, names in defs if not names or names & needed]
    return PYTEST_SHIM + "\n" + ast.unparse(tree) + "\n"


def run_tvm(path, tests, timeout, tvm_python):
    """TVM 0.27's verdict per test via pytest's junit report. A crash of the
    whole run (TVM segfaults in some corners) falls back to one run per test."""
    outcomes = {}
    with tempfile.TemporaryDirectory() as tmp:
        xml = os.path.join(tmp, "r.xml")
        ids = [f"{path}::{t}" for t in tests]
        cmd = [tvm_python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               f"--junitxml={xml}", *ids]
        try:
            subprocess.run(cmd, capture_output=True, timeout=timeout * len(tests), cwd=tmp)
        except subprocess.TimeoutExpired:
            pass
        if os.path.exists(xml):
            for case in ET.parse(xml).getroot().iter("testcase"):
                name = case.get("name")
                failure = case.find("failure")
                if failure is None:
                    failure = case.find("error")
                if case.find("skipped") is not None:
                    outcomes[name] = ("skip", "skipped")
                elif failure is not None:
                    outcomes[name] = ("fail", (failure.get("message") or "")[:300])
                else:
                    outcomes[name] = ("pass", "")
        for t in tests:
            if t in outcomes:
                continue
            try:
                r = subprocess.run([tvm_python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                    f"{path}::{t}"], capture_output=True, text=True,
                                   timeout=timeout, cwd=tmp)
                outcomes[t] = ("pass", "") if r.returncode == 0 else (
                    "fail", f"exit {r.returncode}: {r.stdout[-300:]}")
            except subprocess.TimeoutExpired:
                outcomes[t] = ("fail", "timeout")
    return outcomes


def last_error_line(text):
    """The exception line of a traceback (`NameError: …`), else the last line."""
    lines = [l for l in text.strip().splitlines() if l.strip()]
    for l in lines:
        if re.match(r"^[\w.]+(Error|Exception|Interrupt)\b:?", l):
            detail = [d for d in lines if d.startswith("Error message:")]
            return (l.strip() + (" " + detail[0] if detail else ""))[:300]
    return (lines[-1].strip() if lines else "")[:300]


def run_tessel(tessel, source, test, timeout):
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(source + f"\n{test}()\nprint({PASS_MARK!r})\n")
        name = f.name
    try:
        r = subprocess.run([tessel, "run", name], capture_output=True, text=True, timeout=timeout)
        out = r.stdout + r.stderr
        if r.returncode == 0 and PASS_MARK in r.stdout:
            return "pass", ""
        if r.returncode < 0 or r.returncode >= 101:
            return "crash", f"exit {r.returncode}: {last_error_line(out)}"
        return "fail", last_error_line(out)
    except subprocess.TimeoutExpired:
        return "fail", "timeout"
    finally:
        os.unlink(name)


def is_unsupported(message):
    if re.search(r"unknown schedule primitive|cannot pass a '\w+' to a schedule primitive|"
                 r"ir_module must be used as a class decorator", message):
        return True
    # A schedule refusal or a failed check is a real answer whatever it says.
    if re.search(r"ScheduleError|StructuralEqual|AssertionError|DID NOT RAISE", message):
        return False
    return any(re.search(p, message, re.IGNORECASE) for p in UNSUPPORTED_PATTERNS)


def classify(tvm, tessel, tessel_msg, tvm_msg=""):
    if "has no attribute 'testing'" in tvm_msg:
        # The file relies on TVM's conftest importing tvm.testing.
        return "unsupported", "TVM side needs TVM's conftest (tvm.testing not imported)"
    if tessel == "crash":
        return "disagree", "Tessel crashed"
    if tvm == tessel == "pass":
        return "agree", ""
    if tessel == "fail" and is_unsupported(tessel_msg):
        return "unsupported", "unsupported Python/TVM API in Tessel"
    if tvm == tessel == "fail":
        return "both refuse", ""
    if tvm == "pass":
        return "disagree", "schedule difference: Tessel refuses or differs"
    return "disagree", "schedule difference: Tessel accepts what TVM refuses"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--from-json", help="only rewrite --summary from an earlier --json file")
    ap.add_argument("--tests", help="TVM's tests/python/s_tir/schedule directory")
    ap.add_argument("--tessel", help="the tessel binary")
    ap.add_argument("--tvm-python", default=TVM_PYTHON)
    ap.add_argument("--json", help="per-test results (keep outside the repo)")
    ap.add_argument("--summary", help="markdown summary table to write")
    ap.add_argument("--revision", default="unknown", help="TVM source revision, for the summary")
    ap.add_argument("--only", help="comma-separated family keys (file stems) to run")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per test")
    args = ap.parse_args()
    if args.from_json:
        data = json.load(open(args.from_json))
        for r in data["rows"]:
            if r["tvm"] != "-":
                r["verdict"], r["cause"] = classify(
                    r["tvm"], r["tessel"], r["tessel_message"], r["tvm_message"])
        write_summary(args.summary, data["rows"], data["revision"])
        return
    if not (args.tests and args.tessel and args.json):
        ap.error("--tests, --tessel and --json are required")

    keys = args.only.split(",") if args.only else list(FAMILIES)
    rows = []
    for key in keys:
        path = os.path.join(args.tests, f"test_tir_schedule_{key}.py")
        if not os.path.exists(path):
            print(f"missing {path}", file=sys.stderr)
            continue
        source = open(path).read()
        tests = zero_arg_tests(source)
        runnable = [t for t, ok in tests if ok]
        tvm = run_tvm(os.path.abspath(path), runnable, args.timeout, args.tvm_python)
        for t, ok in tests:
            row = {"family": FAMILIES[key], "file": os.path.basename(path), "test": t}
            if not ok:
                row.update(tvm="-", tessel="-", verdict="unsupported",
                           cause="needs pytest (parameters, fixtures or decorators)")
            else:
                tv, tv_msg = tvm.get(t, ("fail", "not reported"))
                ts, ts_msg = run_tessel(args.tessel, tessel_source(source, t), t, args.timeout)
                verdict, cause = classify(tv, ts, ts_msg, tv_msg)
                row.update(tvm=tv, tvm_message=tv_msg, tessel=ts, tessel_message=ts_msg,
                           verdict=verdict, cause=cause)
            rows.append(row)
            print(f"{row['verdict']:12} {key}::{t}  {row.get('tessel_message', '')[:120]}",
                  flush=True)
    with open(args.json, "w") as f:
        json.dump({"revision": args.revision, "rows": rows}, f, indent=1)
    if args.summary:
        write_summary(args.summary, rows, args.revision)


VERDICTS = ["agree", "both refuse", "disagree", "unsupported"]


def write_summary(path, rows, revision):
    fams = []
    for r in rows:
        if r["family"] not in fams:
            fams.append(r["family"])
    lines = [
        "# TVM schedule tests replayed through Tessel",
        "",
        f"TVM tests: {revision}. Oracle: TVM 0.27 (installed wheel). "
        f"Run on {datetime.date.today().isoformat()} by `tools/tvm_oracle/tvm_test_replay.py`.",
        "",
        "Agreement = both pass (agree) or both fail (both refuse). "
        "Unsupported = Tessel's interpreter stops on Python/TVM API it lacks, "
        "or the test needs pytest (parameters, fixtures, decorators).",
        "",
        "The last column leaves the unsupported tests out: agreement among the tests "
        "both sides actually ran.",
        "",
        "| family | tests | agree | both refuse | disagree | unsupported | agreement | of replayed |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def line(label, rs):
        n = len(rs)
        c = {v: sum(1 for r in rs if r["verdict"] == v) for v in VERDICTS}
        agreed = c["agree"] + c["both refuse"]
        pct = 100.0 * agreed / n if n else 0.0
        replayed = n - c["unsupported"]
        of_replayed = f"{100.0 * agreed / replayed:.0f}%" if replayed else "–"
        return (f"| {label} | {n} | {c['agree']} | {c['both refuse']} | {c['disagree']} "
                f"| {c['unsupported']} | {pct:.0f}% | {of_replayed} |")

    for fam in fams:
        lines.append(line(fam, [r for r in rows if r["family"] == fam]))
    lines.append(line("**total**", rows))
    lines += ["", "## Disagreements", ""]
    for r in rows:
        if r["verdict"] == "disagree":
            lines.append(f"- `{r['file']}::{r['test']}` — TVM {r['tvm']}, Tessel {r['tessel']}: "
                         f"{r['cause']}. {r.get('tessel_message', '')[:160]}")
    lines += ["", "## Unsupported (most common causes)", "",
              "Tests taking `tvm.testing.parameter` fixtures (e.g. `use_block_name`) are not "
              "expanded yet; they are most of split/fuse, compute_inline, decompose_reduction, "
              "sampling and reindex.", ""]
    counts = {}
    for r in rows:
        if r["verdict"] == "unsupported":
            msg = r["cause"] if r["cause"].startswith("TVM side") else (
                r.get("tessel_message") or r["cause"])
            msg = re.sub(r"line \d+", "line N", msg)[:140]
            counts[msg] = counts.get(msg, 0) + 1
    for msg, n in sorted(counts.items(), key=lambda kv: -kv[1])[:25]:
        lines.append(f"- {n} × {msg}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
