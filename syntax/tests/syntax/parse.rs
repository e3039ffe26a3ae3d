//! Snapshot tests for the Python-subset parser: representative programs are
//! parsed and dumped with `syntax::dump`, and sub-expression spans are
//! checked against the source text. Run with `UPDATE_EXPECT=1` to update.

use tessel_syntax::ast::{Expr, ExprKind, Stmt, StmtKind};
use tessel_syntax::diag::render;
use tessel_syntax::dump::{dump_expr, dump_module};
use tessel_syntax::{parse_expr, parse_module};
use tessel_test_support::{expect, Expect};

fn check(src: &str, expected: Expect) {
    match parse_module(src) {
        Ok(m) => expected.assert_eq(&dump_module(&m)),
        Err(e) => panic!("unexpected error:\n{}", render(&e, src, "test.py")),
    }
}

fn check_expr(src: &str, expected: Expect) {
    match parse_expr(src) {
        Ok(e) => expected.assert_eq(&dump_expr(&e)),
        Err(e) => panic!("unexpected error:\n{}", render(&e, src, "test.py")),
    }
}

const MM_RELU: &str = r#"
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def mm_relu(A: T.Buffer((128, 128), "float32"),
                B: T.Buffer((128, 128), "float32"),
                C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
        Y = T.alloc_buffer((128, 128), dtype="float32")
        for i, j, k in T.grid(128, 128, 128):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(128, 128):
            with T.block("C"):
                vi = T.axis.spatial(128, i)
                vj = T.axis.spatial(128, j)
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))
"#;

#[test]
fn tvmscript_module() {
    check(
        MM_RELU,
        expect![[r#"
            import tvm
            from tvm.script import tir as T
            class MyModule @tvm.script.ir_module
              def mm_relu(A: (call T.Buffer (tuple 128 128) "float32"), B: (call T.Buffer (tuple 128 128) "float32"), C: (call T.Buffer (tuple 128 128) "float32")) @T.prim_func
                expr (call T.func_attr (dict ("global_symbol" "mm_relu") ("tir.noalias" True)))
                assign Y = (call T.alloc_buffer (tuple 128 128) dtype="float32")
                for (tuple i j k) in (call T.grid 128 128 128)
                  with (call T.block "Y")
                    assign (tuple vi vj vk) = (call T.axis.remap "SSR" (list i j k))
                    with (call T.init)
                      assign (sub Y (tuple vi vj)) = (call T.float32 0)
                    assign (sub Y (tuple vi vj)) = (+ (sub Y (tuple vi vj)) (* (sub A (tuple vi vk)) (sub B (tuple vk vj))))
                for (tuple i j) in (call T.grid 128 128)
                  with (call T.block "C")
                    assign vi = (call T.axis.spatial 128 i)
                    assign vj = (call T.axis.spatial 128 j)
                    assign (sub C (tuple vi vj)) = (call T.max (sub Y (tuple vi vj)) (call T.float32 0))
        "#]],
    );
}

#[test]
fn tvmscript_annotations_and_handles() {
    check(
        r#"
@T.prim_func(s_tir=True)
def main(a: T.handle, b: T.handle) -> None:
    A = T.match_buffer(a, (128,), "float32")
    B: T.Buffer[(128, 128), "float32"] = T.match_buffer(b, [128, 128])
    n: T.int32 = T.int32(128)
    for i in T.serial(0, n, annotations={"pragma_unroll": 1}):
        with T.block("B"):
            T.reads(A[i])
            T.writes(B[i, 0:128])
            B[i, :] = A[i] * T.float32(2.0)
    T.evaluate(0)
"#,
        expect![[r#"
            def main(a: T.handle, b: T.handle) -> None @(call T.prim_func s_tir=True)
              assign A = (call T.match_buffer a (tuple 128) "float32")
              annassign B: (sub T.Buffer (tuple (tuple 128 128) "float32")) = (call T.match_buffer b (list 128 128))
              annassign n: T.int32 = (call T.int32 128)
              for i in (call T.serial 0 n annotations=(dict ("pragma_unroll" 1)))
                with (call T.block "B")
                  expr (call T.reads (sub A i))
                  expr (call T.writes (sub B (tuple i (slice 0 128 _))))
                  assign (sub B (tuple i (slice _ _ _))) = (* (sub A i) (call T.float32 2.0))
              expr (call T.evaluate 0)
        "#]],
    );
}

#[test]
fn relax_style_module() {
    check(
        r#"
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 784), dtype="float32"), w: R.Tensor((128, 784), "float32")) -> R.Tensor((1, 128), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv0 = R.call_tir(cls.linear0, (x, w), out_sinfo=R.Tensor((1, 128), dtype="float32"))
            gv = R.nn.relu(lv0)
            R.output(gv)
        return gv
"#,
        expect![[r#"
            class Module @I.ir_module
              def main(x: (call R.Tensor (tuple 1 784) dtype="float32"), w: (call R.Tensor (tuple 128 784) "float32")) -> (call R.Tensor (tuple 1 128) dtype="float32") @R.function
                assign cls = Module
                with (call R.dataflow)
                  assign lv0 = (call R.call_tir cls.linear0 (tuple x w) out_sinfo=(call R.Tensor (tuple 1 128) dtype="float32"))
                  assign gv = (call R.nn.relu lv0)
                  expr (call R.output gv)
                return gv
        "#]],
    );
}

#[test]
fn python_cell_functions_and_classes() {
    check(
        r#"
import numpy as np, os.path as osp
from . import sibling
from ..pkg.mod import (a, b as c,)

class Point:
    """A point."""
    def __init__(self, x: float = 0.0, y=0, *args, scale, **kwargs) -> None:
        self.x, self.y = x, y

    @property
    def norm(self):
        return (self.x ** 2 + self.y ** 2) ** 0.5

class Empty(Base, metaclass=Meta): pass

def f(a, b, /, c, *, d=1):
    global counter
    counter += 1
    del a, b[0]
    assert a > 0, "must be positive"
    return a if b else c
"#,
        expect![[r#"
            import numpy as np, os.path as osp
            from . import sibling
            from ..pkg.mod import a, b as c
            class Point
              expr "A point."
              def __init__(self, x: float = 0.0, y = 0, *args, scale, **kwargs) -> None
                assign (tuple self.x self.y) = (tuple x y)
              def norm(self) @property
                return (** (+ (** self.x 2) (** self.y 2)) 0.5)
            class Empty(Base metaclass=Meta)
              pass
            def f(a, b, /, c, *, d = 1)
              global counter
              augassign counter += 1
              del a, (sub b 0)
              assert (cmp a > 0), "must be positive"
              return (if b a c)
        "#]],
    );
}

#[test]
fn python_cell_control_flow() {
    check(
        r#"
try:
    x = risky()
except (ValueError, KeyError) as e:
    print(f"bad: {e!r}")
    raise RuntimeError("wrapped") from e
except Exception:
    pass
else:
    ok = True
finally:
    cleanup()

for i in range(10):
    if i % 2 == 0:
        continue
    elif i > 7:
        break
    else:
        pass
else:
    done = 1

while (n := next_value()) is not None:
    total += n

with open("a") as fa, open("b") as fb:
    pass
with (open("a") as fa,
      open("b") as fb,):
    pass
with (a, b):
    pass
"#,
        expect![[r#"
            try
              assign x = (call risky)
            except (tuple ValueError KeyError) as e
              expr (call print (f "bad: " {e !r}))
              raise (call RuntimeError "wrapped") from e
            except Exception
              pass
            else
              assign ok = True
            finally
              expr (call cleanup)
            for i in (call range 10)
              if (cmp (% i 2) == 0)
                continue
              else
                if (cmp i > 7)
                  break
                else
                  pass
            else
              assign done = 1
            while (cmp (:= n (call next_value)) is not None)
              augassign total += n
            with (call open "a") as fa, (call open "b") as fb
              pass
            with (call open "a") as fa, (call open "b") as fb
              pass
            with a, b
              pass
        "#]],
    );
}

#[test]
fn python_cell_expressions() {
    check(
        r#"
squares = [x * x for x in range(10) if x % 2 if x > 2]
pairs = {k: v for k, v in d.items()}
uniq = {x for x in xs}
gen = sum(x for x in xs)
nested = [[i * j for j in range(3)] for i in range(3)]
a, *rest = [1, 2, 3]
first, = seq
x = y = z = 0
merged = {**defaults, "lr": 1e-3, **overrides}
s = a[1:, ::2]
t = a[..., None, -1]
u = a[:]
v = a[1:2:3, ::]
f = lambda *i: i
g = lambda x, y=2, *a, k, **kw: x + y
h = lambda: None
print(x, end="")
print(*args, sep=", ", **kw)
cond = not a and b or c
cmp = 0 <= i < n != m
mem = x not in ys and y is not None
bits = a | b ^ c & d << 1 >> 2
arith = -a ** -b * c // d % e @ f - +g / ~h
t0 = ()
t1 = (1,)
t2 = 1, 2,
p = (yield)
e = {}
"#,
        expect![[r#"
            assign squares = (listcomp (* x x) (for x (call range 10) (if (% x 2)) (if (cmp x > 2))))
            assign pairs = (dictcomp k v (for (tuple k v) (call d.items)))
            assign uniq = (setcomp x (for x xs))
            assign gen = (call sum (genexp x (for x xs)))
            assign nested = (listcomp (listcomp (* i j) (for j (call range 3))) (for i (call range 3)))
            assign (tuple a (* rest)) = (list 1 2 3)
            assign (tuple first) = seq
            assign x = y = z = 0
            assign merged = (dict (** defaults) ("lr" 0.001) (** overrides))
            assign s = (sub a (tuple (slice 1 _ _) (slice _ _ 2)))
            assign t = (sub a (tuple ... None (neg 1)))
            assign u = (sub a (slice _ _ _))
            assign v = (sub a (tuple (slice 1 2 3) (slice _ _ _)))
            assign f = (lambda (*i) i)
            assign g = (lambda (x, y = 2, *a, k, **kw) (+ x y))
            assign h = (lambda () None)
            expr (call print x end="")
            expr (call print (* args) sep=", " **kw)
            assign cond = (or (and (not a) b) c)
            assign cmp = (cmp 0 <= i < n != m)
            assign mem = (and (cmp x not in ys) (cmp y is not None))
            assign bits = (| a (^ b (& c (>> (<< d 1) 2))))
            assign arith = (- (@ (% (// (* (neg (** a (neg b))) c) d) e) f) (/ (pos g) (~ h)))
            assign t0 = (tuple)
            assign t1 = (tuple 1)
            assign t2 = (tuple 1 2)
            assign p = (yield)
            assign e = (dict)
        "#]],
    );
}

#[test]
fn literals() {
    check_expr(
        r#"[0, 1_000, 0x_FF, 0o17, 0b1010, 1.5, 1e-5, .5, 1., 1_0.0_1, 2j, 3.5J, True, False, None, ...]"#,
        expect!["(list 0 1000 255 15 10 1.5 1e-5 0.5 1.0 10.01 2.0j 3.5j True False None ...)"],
    );
    check_expr(
        r#"["a" 'b' """c""" '''d''', r"\n", b"\x00\xff", rb"\d", "\t\u00e9\U0001F600\x41\101\
next", u"x"]"#,
        expect![[r#"(list "abcd" "\\n" b"\x00\xff" b"\\d" "\té😀AAnext" "x")"#]],
    );
}

#[test]
fn fstrings() {
    check_expr(
        r#"f"{x}" f'{y!r:>{width}.{prec}f}' "plain {}" F"{{literal}} {a['k']} {b = } {c=:.2f} {d + 1}" rf"\d{e}""#,
        expect![[
            r#"(f {x} {y !r :(spec ">" {width} "." {prec} "f")} "plain {}{literal} " {(sub a "k")} " " {b ="b = " !r} " " {c ="c=" :(spec ".2f")} " " {(+ d 1)} "\\d" {e})"#
        ]],
    );
    check_expr(
        r#"f"{'nested' + f'{inner}'}" f"{x:{'>' if left else '<'}10}" f"""multi
{line}""""#,
        expect![[
            r#"(f {(+ "nested" (f {inner}))} {x :(spec {(if left ">" "<")} "10")} "multi\n" {line})"#
        ]],
    );
}

#[test]
fn notebook_magics() {
    check(
        "%pip install mlc-ai-nightly -f https://mlc.ai/wheels\n!nvidia-smi\nimport tvm\nif True:\n    !ls\n",
        expect![[r#"
            magic "%pip install mlc-ai-nightly -f https://mlc.ai/wheels"
            magic "!nvidia-smi"
            import tvm
            if True
              magic "!ls"
        "#]],
    );
    check(
        "%%time\nx = 1\nthis is not python\n",
        expect![[r#"
        magic "%%time\nx = 1\nthis is not python"
    "#]],
    );
}

#[test]
fn lexical_structure() {
    check(
        "if x:\n\tif y:  # comment\n\n\t\t# only a comment, at a different indent\n\t\tz = (1 +\n  2)\n\t\tw = 1 + \\\n    2\nelse: pass; q = 1;\n",
        expect![[r#"
            if x
              if y
                assign z = (+ 1 2)
                assign w = (+ 1 2)
            else
              pass
              assign q = 1
        "#]],
    );
    // CRLF and CR line endings, no trailing newline.
    check(
        "a = 1\r\nif a:\r\n    b = 2\rc = 3",
        expect![[r#"
        assign a = 1
        if a
          assign b = 2
        assign c = 3
    "#]],
    );
    // A UTF-8 byte-order mark is ignored.
    check(
        "\u{feff}x = 1\n",
        expect![[r#"
        assign x = 1
    "#]],
    );
    // Empty and blank inputs.
    check("", expect![[r#""#]]);
    check("\n\n   \n# comment\n", expect![[r#""#]]);
}

#[test]
fn precedence() {
    check_expr("1 + 2 * 3 - 4", expect!["(- (+ 1 (* 2 3)) 4)"]);
    check_expr("-2 ** 2", expect!["(neg (** 2 2))"]);
    check_expr("2 ** 3 ** 2", expect!["(** 2 (** 3 2))"]);
    check_expr("not a == b", expect!["(not (cmp a == b))"]);
    check_expr("a or b and not c", expect!["(or a (and b (not c)))"]);
    check_expr("a if b else c if d else e", expect!["(if b a (if d c e))"]);
    check_expr(
        "lambda x: lambda y: x + y",
        expect!["(lambda (x) (lambda (y) (+ x y)))"],
    );
    check_expr("x.y(z)[0].w", expect!["(. (sub (call x.y z) 0) w)"]);
    check_expr("a < b == c is not d", expect!["(cmp a < b == c is not d)"]);
    check_expr("1, *b", expect!["(tuple 1 (* b))"]);
}

// ---------------------------------------------------------------------------
// Spans
// ---------------------------------------------------------------------------

fn text(src: &str, e: &Expr) -> String {
    e.span.slice(src).to_string()
}

fn stmt_text(src: &str, s: &Stmt) -> String {
    s.span.slice(src).to_string()
}

#[test]
fn spans_of_statements_and_expressions() {
    let module = parse_module(MM_RELU).unwrap();
    let class = &module.body[2];
    assert!(stmt_text(MM_RELU, class).starts_with("@tvm.script.ir_module\nclass MyModule:"));
    assert!(stmt_text(MM_RELU, class).ends_with("T.float32(0))"));
    let StmtKind::ClassDef(c) = &class.kind else {
        panic!()
    };
    assert_eq!(c.name_span.slice(MM_RELU), "MyModule");
    let StmtKind::FunctionDef(f) = &c.body[0].kind else {
        panic!()
    };
    assert_eq!(f.name_span.slice(MM_RELU), "mm_relu");
    assert_eq!(text(MM_RELU, &f.decorators[0]), "T.prim_func");
    let a = &f.params.args[0];
    assert_eq!(a.name_span.slice(MM_RELU), "A");
    assert_eq!(
        a.span.slice(MM_RELU),
        r#"A: T.Buffer((128, 128), "float32")"#
    );
    assert_eq!(
        text(MM_RELU, a.annotation.as_ref().unwrap()),
        r#"T.Buffer((128, 128), "float32")"#
    );

    // The `for` loop and its header.
    let StmtKind::For {
        target, iter, body, ..
    } = &f.body[2].kind
    else {
        panic!()
    };
    assert_eq!(text(MM_RELU, target), "i, j, k");
    assert_eq!(text(MM_RELU, iter), "T.grid(128, 128, 128)");
    let StmtKind::With { items, body } = &body[0].kind else {
        panic!()
    };
    assert_eq!(text(MM_RELU, &items[0].context), r#"T.block("Y")"#);
    // `Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]`
    let update = &body[2];
    assert_eq!(
        stmt_text(MM_RELU, update),
        "Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]"
    );
    let StmtKind::Assign { targets, value } = &update.kind else {
        panic!()
    };
    assert_eq!(text(MM_RELU, &targets[0]), "Y[vi, vj]");
    let ExprKind::Subscript { index, .. } = &targets[0].kind else {
        panic!()
    };
    assert_eq!(text(MM_RELU, index), "vi, vj");
    let ExprKind::BinOp { left, right, .. } = &value.kind else {
        panic!()
    };
    assert_eq!(text(MM_RELU, left), "Y[vi, vj]");
    assert_eq!(text(MM_RELU, right), "A[vi, vk] * B[vk, vj]");
    let ExprKind::BinOp { right: b, .. } = &right.kind else {
        panic!()
    };
    assert_eq!(text(MM_RELU, b), "B[vk, vj]");
}

#[test]
fn spans_inside_calls_and_fstrings() {
    let src = r#"x = T.axis.spatial(128, i) + f"v={value * 2!r:>{w}}""#;
    let m = parse_module(src).unwrap();
    let StmtKind::Assign { value, .. } = &m.body[0].kind else {
        panic!()
    };
    let ExprKind::BinOp { left, right, .. } = &value.kind else {
        panic!()
    };
    let ExprKind::Call { func, args } = &left.kind else {
        panic!()
    };
    assert_eq!(text(src, func), "T.axis.spatial");
    let ExprKind::Attribute {
        attr_span,
        value: inner,
        ..
    } = &func.kind
    else {
        panic!()
    };
    assert_eq!(attr_span.slice(src), "spatial");
    assert_eq!(text(src, inner), "T.axis");
    assert_eq!(args[1].span().slice(src), "i");
    let ExprKind::FString(parts) = &right.kind else {
        panic!()
    };
    let tessel_syntax::ast::FStringPart::Field(field) = &parts[1] else {
        panic!()
    };
    assert_eq!(field.span.slice(src), "{value * 2!r:>{w}}");
    assert_eq!(text(src, &field.expr), "value * 2");
    let spec = field.format_spec.as_ref().unwrap();
    let tessel_syntax::ast::FStringPart::Field(w) = &spec[1] else {
        panic!()
    };
    assert_eq!(text(src, &w.expr), "w");

    let src = "print(x, end='', sep=sep)";
    let e = parse_expr(src).unwrap();
    let ExprKind::Call { args, .. } = &e.kind else {
        panic!()
    };
    let tessel_syntax::ast::Arg::Keyword(k) = &args[1] else {
        panic!()
    };
    assert_eq!(k.name_span.slice(src), "end");
    assert_eq!(k.span.slice(src), "end=''");
    assert_eq!(text(src, &k.value), "''");
}

#[test]
fn spans_of_parenthesized_and_tuples() {
    let src = "(a + b) * (c,)";
    let e = parse_expr(src).unwrap();
    assert_eq!(text(src, &e), src);
    let ExprKind::BinOp { left, right, .. } = &e.kind else {
        panic!()
    };
    // A parenthesized expression's span is the inner expression's...
    assert_eq!(text(src, left), "a + b");
    // ...but a parenthesized tuple includes its parentheses.
    assert_eq!(text(src, right), "(c,)");

    let src = "a[1:, ::2]";
    let e = parse_expr(src).unwrap();
    let ExprKind::Subscript { index, .. } = &e.kind else {
        panic!()
    };
    let ExprKind::Tuple(items) = &index.kind else {
        panic!()
    };
    assert_eq!(text(src, &items[0]), "1:");
    assert_eq!(text(src, &items[1]), "::2");

    // Multi-byte characters: spans are byte offsets on char boundaries.
    let src = "s = 'héllo' + naïve";
    let m = parse_module(src).unwrap();
    let StmtKind::Assign { value, .. } = &m.body[0].kind else {
        panic!()
    };
    let ExprKind::BinOp { left, right, .. } = &value.kind else {
        panic!()
    };
    assert_eq!(text(src, left), "'héllo'");
    assert_eq!(text(src, right), "naïve");
}

#[test]
fn parse_expr_allows_newlines_and_comments() {
    check_expr("\n  a +\n  b  # comment\n", expect!["(+ a b)"]);
}
