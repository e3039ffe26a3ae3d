#!/usr/bin/env python3
"""Replays Apache TVM's own schedule unit tests through TVM 0.27 and `tessel run`.

For every `test_*` function in TVM's
`tests/python/s_tir/schedule/test_tir_schedule_<family>.py` files (for the
primitive families Tessel implements), and for every combination of its
pytest parameters (`@pytest.mark.parametrize` marks and module-level
`tvm.testing.parameter(...)` / `tvm.testing.parameters(...)` fixtures), the
case runs once under TVM 0.27 (its pytest, by the id pytest gives it) and
once under `tessel run` (the test file's source with a generated driver
appended: one call of the test with the case's parameter values as keyword
arguments), and the two outcomes are compared:

* agree        both pass
* both refuse  both fail (the test expects behaviour neither gives)
* disagree     one passes, the other fails for a schedule reason
               (a refusal, a structural mismatch, an accepted illegal request)
* unsupported  Tessel stops on Python or TVM API its interpreter lacks, or
               the test needs other pytest machinery (skip, xfail, fixtures)

TVM's test files are read from a directory given on the command line and are
never copied into this repository. Tessel has no `pytest`; the only stand-in
is `pytest.raises`, a context that fails unless the expected exception is
raised (see PYTEST_SHIM), so no failure is hidden.

Usage:
    tvm_test_replay.py --tests DIR --tessel target/release/tessel \
        --json /tmp/replay.json --tvm-cache /tmp/replay-tvm.json \
        --summary tools/tvm_oracle/tvm_test_replay_summary.md \
        --revision "apache/tvm <sha> (<date>)"
"""

import argparse
import ast
import datetime
import hashlib
import itertools
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


PARAMETER_MARK = "pytest.mark.parametrize"
FIXTURE_PARAMETER = ("tvm.testing.parameter", "tvm.testing.parameters")


def literal_source(node):
    """Python source of one parameter value, as both sides evaluate it."""
    return ast.unparse(node)


def value_id(node, argname, index):
    """pytest's id for one parameter value: the value itself for numbers,
    booleans, None and strings, else `argname` + index."""
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return f"{argname}{index}"
    if value is None or isinstance(value, (bool, int, float, str)):
        return str(value)
    return f"{argname}{index}"


def fixture_parameters(tree):
    """Module-level `name = tvm.testing.parameter(...)` fixtures:
    name -> [(id, value source)]. `tvm.testing.parameters(...)` (several
    names bound together) gives one entry per name with the same ids."""
    out = {}
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
            continue
        callee = ast.unparse(node.value.func)
        call = node.value
        if callee == "tvm.testing.parameter":
            (target,) = node.targets
            if not isinstance(target, ast.Name):
                continue
            by_dict = [k for k in call.keywords if k.arg == "by_dict"]
            if by_dict and isinstance(by_dict[0].value, ast.Dict):
                d = by_dict[0].value
                out[target.id] = [(ast.literal_eval(k), literal_source(v))
                                  for k, v in zip(d.keys, d.values)]
            else:
                ids = [k for k in call.keywords if k.arg == "ids"]
                names = ast.literal_eval(ids[0].value) if ids else None
                out[target.id] = [(names[i] if names else value_id(a, target.id, i),
                                   literal_source(a)) for i, a in enumerate(call.args)]
        elif callee == "tvm.testing.parameters":
            (target,) = node.targets
            if not isinstance(target, ast.Tuple):
                continue
            names = [t.id for t in target.elts]
            rows = [a.elts for a in call.args if isinstance(a, ast.Tuple)]
            for j, name in enumerate(names):
                out[name] = [("-".join(value_id(v, names[k], i) for k, v in enumerate(row)),
                              literal_source(row[j])) for i, row in enumerate(rows)]
            out[tuple(names)] = True
    return out


def parametrize_marks(node):
    """`@pytest.mark.parametrize(names, values)` decorators of a test:
    a list of axes, each a list of (id, {argname: value source})."""
    axes = []
    for d in node.decorator_list:
        if not (isinstance(d, ast.Call) and ast.unparse(d.func) == PARAMETER_MARK):
            continue
        names_node, values_node = d.args[0], d.args[1]
        names = ast.literal_eval(names_node)
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        if not isinstance(values_node, (ast.List, ast.Tuple)):
            raise ValueError("parametrize values are not a literal list")
        axis = []
        for i, v in enumerate(values_node.elts):
            explicit_id = None
            if isinstance(v, ast.Call) and ast.unparse(v.func) == "pytest.param":
                explicit_id = next((ast.literal_eval(k.value) for k in v.keywords
                                    if k.arg == "id"), None)
                if any(k.arg == "marks" for k in v.keywords):
                    raise ValueError("parametrize value carries marks")
                v = v.args[0] if len(names) == 1 else ast.Tuple(elts=v.args)
            elts = [v] if len(names) == 1 else list(v.elts)
            binding = {n: literal_source(e) for n, e in zip(names, elts)}
            ident = explicit_id or "-".join(value_id(e, n, i) for n, e in zip(names, elts))
            axis.append((ident, binding))
        axes.append(axis)
    return axes


def test_cases(source):
    """The replayed cases of a test file (see `case`), one per parameter
    combination; a case that cannot be replayed says why in `why_not`.
    Tests without parameters give one case named as the test; parametrized
    ones give `name[id]` per combination, with ids as pytest writes them
    (matched against pytest's own collection by `pytest_case_id`)."""
    tree = ast.parse(source)
    fixtures = fixture_parameters(tree)
    out = []
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef) and node.name.startswith("test_")):
            continue
        a = node.args
        other = [d for d in node.decorator_list
                 if ast.unparse(d).startswith(("pytest.", "tvm.testing."))
                 and not (isinstance(d, ast.Call) and ast.unparse(d.func) == PARAMETER_MARK)]
        if any(re.search(r"\b(skip|skipif|xfail)\b", ast.unparse(d)) for d in other):
            out.append(case(node.name, why_not=SKIPPED_BY_TVM))
            continue
        if other or a.vararg or a.kwonlyargs or a.kwarg:
            out.append(case(node.name, why_not="needs pytest (skip, xfail or other decorators)"))
            continue
        try:
            axes = parametrize_marks(node)
        except (ValueError, IndexError, SyntaxError):
            out.append(case(node.name, why_not="needs pytest (unreadable parametrize)"))
            continue
        marked = {n for axis in axes for _, b in axis for n in b}
        missing = [x.arg for x in a.args if x.arg not in marked and x.arg not in fixtures]
        if missing:
            out.append(case(node.name, why_not=f"needs pytest fixtures ({', '.join(missing)})"))
            continue
        for x in a.args:
            if x.arg not in marked:
                axes.append([(ident, {x.arg: value}) for ident, value in fixtures[x.arg]])
        if not axes:
            out.append(case(node.name))
            continue
        for combo in itertools.product(*axes):
            binding = {}
            for _, b in combo:
                binding.update(b)
            out.append(case(node.name, binding, [ident for ident, _ in combo]))
    return out


# TVM's own suite does not run these (or expects them to fail): no oracle.
SKIPPED_BY_TVM = "marked skip or xfail in TVM's suite"


def no_oracle(row):
    """TVM 0.27 gives no verdict on this case: its suite skips it or expects
    it to fail, or the test file does not load under TVM 0.27 (pytest's
    collection error, exit 4, or every test of the file timing out on it)."""
    if row.get("cause") == SKIPPED_BY_TVM:
        return True
    msg = row.get("tvm_message") or ""
    return row["tvm"] == "fail" and row["verdict"] == "unsupported" and (
        msg == "timeout" or msg.startswith("exit 4:"))


def case(test, binding=None, ids=None, why_not=None):
    """One replayed case: `test` called with `binding` (argument name ->
    value source); `ids` are the pytest id parts of a parametrized case."""
    name = f"{test}[{'-'.join(ids)}]" if ids else test
    return {"case": name, "test": test, "binding": binding or {}, "ids": ids or [],
            "why_not": why_not}


def pytest_case_id(c, collected):
    """pytest's id of case `c` among the `collected` ids of its file: the id
    parts are joined in whichever order pytest put them (parametrize marks
    and fixture parameters are ordered by pytest, not by the signature)."""
    if not c["ids"]:
        return c["test"]
    for perm in itertools.permutations(c["ids"]):
        name = f"{c['test']}[{'-'.join(perm)}]"
        if name in collected:
            return name
    return c["case"]


def pytest_decorated(node):
    """Decorated by pytest or tvm.testing (parametrize, skip, fixture …)."""
    return any(ast.unparse(d).startswith(("pytest.", "tvm.testing."))
               for d in node.decorator_list)


def only_parametrized(node):
    """Every pytest decorator of `node` is a parametrize mark."""
    return all(isinstance(d, ast.Call) and ast.unparse(d.func) == PARAMETER_MARK
               for d in node.decorator_list
               if ast.unparse(d).startswith(("pytest.", "tvm.testing.")))


def is_pytest_machinery(node):
    """Module-level pytest machinery Tessel cannot run: pytest-decorated
    functions (skipped, fixtures) other than parametrized tests, and
    `x = tvm.testing.parameter(...)` / `fixture(...)` assignments (the
    replayed case's driver binds the values instead)."""
    if isinstance(node, ast.FunctionDef) and pytest_decorated(node):
        return not (node.name.startswith("test_") and only_parametrized(node))
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
        if isinstance(node, ast.FunctionDef) and pytest_decorated(node):
            # A parametrized test: the driver binds its parameters.
            node.decorator_list = []
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


# TVM's conftest imports tvm.testing before the test modules (whose
# module-level `tvm.testing.parameter(...)` needs it); this plugin does the same.
CONFTEST_PLUGIN = "_tvm_replay_conftest"


def pytest_run(tvm_python, args, cwd, timeout):
    """pytest under TVM's Python in `cwd`, with CONFTEST_PLUGIN loaded."""
    with open(os.path.join(cwd, CONFTEST_PLUGIN + ".py"), "w") as f:
        f.write("import tvm.testing  # noqa: F401\n")
    env = dict(os.environ, PYTHONPATH=cwd)
    return subprocess.run([tvm_python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", CONFTEST_PLUGIN, *args],
                          capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env)


def collect_ids(path, tvm_python, timeout):
    """pytest's own test ids in `path` (`name` or `name[id]`)."""
    with tempfile.TemporaryDirectory() as tmp:
        try:
            r = pytest_run(tvm_python, ["--collect-only", path], tmp, timeout)
        except subprocess.TimeoutExpired:
            return set()
    return {line.split("::", 1)[1] for line in r.stdout.splitlines() if "::" in line}


def run_tvm(path, tests, timeout, tvm_python):
    """TVM 0.27's verdict per pytest id via pytest's junit report (TVM's
    test plugin loaded, as TVM's conftest does). A crash of the whole run
    (TVM segfaults in some corners) falls back to one run per test."""
    outcomes = {}
    with tempfile.TemporaryDirectory() as tmp:
        xml = os.path.join(tmp, "r.xml")
        ids = [f"{path}::{t}" for t in tests]
        try:
            pytest_run(tvm_python, [f"--junitxml={xml}", *ids], tmp, timeout * len(tests))
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
                r = pytest_run(tvm_python, [f"{path}::{t}"], tmp, timeout)
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


def run_tessel(tessel, source, test, binding, timeout):
    """Tessel's verdict on `test` called with `binding` (the generated
    driver: one call with the case's parameters as keyword arguments)."""
    args = ", ".join(f"{name}={value}" for name, value in binding.items())
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(source + f"\n{test}({args})\nprint({PASS_MARK!r})\n")
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
    ap.add_argument("--tvm-cache", help="JSON file keeping TVM's verdicts between runs "
                    "(keyed by the test file's content; keep outside the repo)")
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
    tvm_cache = {}
    if args.tvm_cache and os.path.exists(args.tvm_cache):
        tvm_cache = json.load(open(args.tvm_cache))
    for key in keys:
        path = os.path.join(args.tests, f"test_tir_schedule_{key}.py")
        if not os.path.exists(path):
            print(f"missing {path}", file=sys.stderr)
            continue
        source = open(path).read()
        cases = test_cases(source)
        collected = collect_ids(os.path.abspath(path), args.tvm_python, args.timeout * 4)
        for c in cases:
            c["pytest_id"] = pytest_case_id(c, collected)
        runnable = [c["pytest_id"] for c in cases if c["why_not"] is None]
        file_key = hashlib.sha256(source.encode()).hexdigest()
        cached = tvm_cache.get(file_key, {})
        if all(t in cached for t in runnable):
            tvm = cached
        else:
            tvm = run_tvm(os.path.abspath(path), runnable, args.timeout, args.tvm_python)
            tvm_cache[file_key] = tvm
            if args.tvm_cache:
                with open(args.tvm_cache, "w") as f:
                    json.dump(tvm_cache, f)
        for c in cases:
            row = {"family": FAMILIES[key], "file": os.path.basename(path), "test": c["pytest_id"]}
            if c["why_not"] is not None:
                row.update(tvm="-", tessel="-", verdict="unsupported", cause=c["why_not"])
            else:
                tv, tv_msg = tvm.get(c["pytest_id"], ("fail", "not reported"))
                ts, ts_msg = run_tessel(args.tessel, tessel_source(source, c["test"]), c["test"],
                                        c["binding"], args.timeout)
                verdict, cause = classify(tv, ts, ts_msg, tv_msg)
                row.update(tvm=tv, tvm_message=tv_msg, tessel=ts, tessel_message=ts_msg,
                           verdict=verdict, cause=cause)
            rows.append(row)
            print(f"{row['verdict']:12} {key}::{row['test']}  "
                  f"{row.get('tessel_message', '')[:120]}", flush=True)
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
        "One row per test and per combination of its pytest parameters (`test_x[block_obj]`). "
        "Agreement = both pass (agree) or both fail (both refuse). "
        "Unsupported = Tessel's interpreter stops on Python/TVM API it lacks, "
        "or the test needs other pytest machinery (skip, xfail, fixtures).",
        "",
        "No oracle (counted in unsupported too) = TVM 0.27 gives no verdict: its suite skips the "
        "test or expects it to fail, or the test file does not load under TVM 0.27.",
        "",
        "Agreement is over all cases; *of cases TVM runs* leaves the no-oracle cases out; "
        "*of replayed* leaves every unsupported case out: agreement among the tests both "
        "sides actually ran.",
        "",
        "| family | cases | agree | both refuse | disagree | unsupported | no oracle "
        "| agreement | of cases TVM runs | of replayed |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def line(label, rs):
        n = len(rs)
        c = {v: sum(1 for r in rs if r["verdict"] == v) for v in VERDICTS}
        agreed = c["agree"] + c["both refuse"]
        pct = 100.0 * agreed / n if n else 0.0
        replayed = n - c["unsupported"]
        of_replayed = f"{100.0 * agreed / replayed:.0f}%" if replayed else "–"
        without = sum(1 for r in rs if no_oracle(r))
        judged = n - without
        of_judged = f"{100.0 * agreed / judged:.0f}%" if judged else "–"
        return (f"| {label} | {n} | {c['agree']} | {c['both refuse']} | {c['disagree']} "
                f"| {c['unsupported']} | {without} | {pct:.0f}% | {of_judged} | {of_replayed} |")

    for fam in fams:
        lines.append(line(fam, [r for r in rows if r["family"] == fam]))
    lines.append(line("**total**", rows))
    lines += ["", "## Disagreements", ""]
    for r in rows:
        if r["verdict"] == "disagree":
            lines.append(f"- `{r['file']}::{r['test']}` — TVM {r['tvm']}, Tessel {r['tessel']}: "
                         f"{r['cause']}. {r.get('tessel_message', '')[:160]}")
    lines += ["", "## Unsupported (most common causes)", ""]
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
